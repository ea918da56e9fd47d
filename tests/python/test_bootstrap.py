import numpy as np
import pytest
from scipy import stats

from concord_stats.agreement import share_pct
from concord_stats.bootstrap import (
    Interval,
    bootstrap,
    bootstrap_many,
    derive_seed,
    percentile_interval,
    resample_blocks,
    resample_counts,
    unit_resample_blocks,
    weighted_means,
)
from concord_stats.entropy import shannon_entropy


def share_summary(counts: list[int], n_resamples: int, seed: int) -> dict[str, float]:
    """The 95 % bootstrap summary of the share (%) of the first of two categories' counts."""
    return bootstrap(
        np.array(counts),
        lambda c: share_pct(c, [0], [0, 1]),
        n_resamples=n_resamples,
        confidence=0.95,
        seed=seed,
    ).summary()


def test_percentile_interval_matches_scipy_percentile_bootstrap():
    data = np.random.default_rng(1).normal(size=40)
    res = stats.bootstrap(
        (data,),
        np.mean,
        n_resamples=2000,
        method="percentile",
        random_state=7,
        confidence_level=0.9,
    )
    # scipy's replicates, through our interval, give scipy's interval
    low, high = percentile_interval(res.bootstrap_distribution, 0.9)
    assert low == pytest.approx(res.confidence_interval.low, rel=1e-12)
    assert high == pytest.approx(res.confidence_interval.high, rel=1e-12)


def test_thirty_of_sixty_converges_to_the_documented_interval():
    # docs/formulas.md: the percentile CI of 30/60 converges to [36.67 %, 63.33 %]
    result = share_summary([30, 30], n_resamples=20000, seed=3)
    assert result["estimate"] == 50.0
    assert result["ci_low"] == pytest.approx(100 * 22 / 60, abs=1e-9)
    assert result["ci_high"] == pytest.approx(100 * 38 / 60, abs=1e-9)


def test_same_seed_same_numbers_other_seed_other_numbers():
    run = lambda seed: bootstrap(  # noqa: E731
        np.array([12, 5, 3, 20]), shannon_entropy, n_resamples=500, confidence=0.95, seed=seed
    )
    assert run(11) == run(11)
    assert run(11) != run(12)


def test_count_resampling_matches_row_resampling_in_distribution():
    """Drawing Multinomial(n, p̂) counts is row resampling without materialising rows."""
    rows = np.repeat(np.arange(4), [25, 18, 10, 7])  # 60 answers over 4 options
    counts = np.bincount(rows, minlength=4)
    n_resamples = 20000
    by_counts = shannon_entropy(resample_counts(counts, n_resamples, np.random.default_rng(5)))
    idx = np.random.default_rng(6).integers(0, rows.size, size=(n_resamples, rows.size))
    by_rows = shannon_entropy(np.stack([np.bincount(r, minlength=4) for r in rows[idx]]))
    # same distribution: two-sample KS does not reject, and the moments agree closely
    assert stats.ks_2samp(by_counts, by_rows).pvalue > 0.01
    assert by_counts.mean() == pytest.approx(by_rows.mean(), abs=0.01)
    assert by_counts.std() == pytest.approx(by_rows.std(), rel=0.05)


def test_bootstrap_rows_and_counts_agree_on_agreement_rate():
    outcomes = np.array([1] * 30 + [0] * 30)
    by_rows = bootstrap(
        np.ones(60, dtype=int),
        weighted_means(100.0 * outcomes),
        n_resamples=20000,
        confidence=0.95,
        seed=1,
    ).summary()
    by_counts = share_summary([30, 30], n_resamples=20000, seed=2)
    assert by_rows["estimate"] == by_counts["estimate"] == 50.0
    assert abs(by_rows["ci_low"] - by_counts["ci_low"]) <= 100 / 60 + 1e-9
    assert abs(by_rows["ci_high"] - by_counts["ci_high"]) <= 100 / 60 + 1e-9


def test_degenerate_samples():
    one_item = share_summary([1, 0], n_resamples=100, seed=0)
    assert one_item == {"estimate": 100.0, "boot_mean": 100.0, "ci_low": 100.0, "ci_high": 100.0}
    all_same = bootstrap(
        np.array([60, 0, 0, 0]), shannon_entropy, n_resamples=100, confidence=0.95, seed=0
    )
    assert all_same.ci_low == all_same.ci_high == 0.0
    with pytest.raises(ValueError, match="empty"):
        resample_counts(np.array([0, 0]), 10, np.random.default_rng(0))
    with pytest.raises(ValueError):
        percentile_interval(np.array([1.0, 2.0]), confidence=1.5)


def test_share_pct_without_complete_items_is_nan():
    assert np.isnan(share_pct(np.array([0, 0, 5]), [0], [0, 1]))


def test_derived_seeds_are_stable_and_distinct():
    assert derive_seed(1, "GPT-4o", "base", "agreement_pct") == derive_seed(
        1, "GPT-4o", "base", "agreement_pct"
    )
    assert derive_seed(1, "GPT-4o", "base", "agreement_pct") != derive_seed(
        1, "GPT-4o", "shuffled", "agreement_pct"
    )


def test_disagreement_rates_partition_the_complete_items():
    from concord_stats.agreement import disagreement_rate_statistics

    types = ["full_agreement", "one_diverged", "majority", "no_majority"]
    rates = disagreement_rate_statistics(types)
    counts = np.array([[30, 23, 0, 7, 0], [6, 2, 1, 1, 10]])  # last: incomplete
    np.testing.assert_allclose(rates["full_agreement_pct"](counts), [50.0, 60.0])
    np.testing.assert_allclose(rates["disagreement_pct"](counts), [50.0, 40.0])
    np.testing.assert_allclose(rates["no_majority_pct"](counts), [100 * 7 / 60, 10.0])


def test_unit_counts_are_row_resampling_exactly():
    """Distinct rows (counts all 1): the counts tally uniform row indices from the seed."""
    rng_counts = resample_counts(np.ones(7, dtype=int), 50, np.random.default_rng(4))
    idx = np.random.default_rng(4).integers(0, 7, size=(50, 7))
    expected = np.stack([np.bincount(row, minlength=7) for row in idx])
    np.testing.assert_array_equal(rng_counts, expected)
    # blocks draw the same stream as one draw
    blocks = np.concatenate(list(resample_blocks(np.ones(7, dtype=int), 50, 4, max_cells=21)))
    np.testing.assert_array_equal(blocks, expected)


def _unit_counts(n, n_resamples, seed, unit_block):
    counts = np.zeros((n_resamples, n), dtype=np.int64)
    for lo, hi, r0, block in unit_resample_blocks(n, n_resamples, seed, unit_block):
        counts[r0 : r0 + block.shape[0], lo:hi] = block
    return counts


@pytest.mark.parametrize("unit_block", [3, 5, 16])
def test_unit_blocks_draw_the_multinomial_of_row_resampling(unit_block):
    """Counts made block of units by block of units are Multinomial(n, 1/n): every resample
    draws n units; each unit's count is Binomial(n, 1/n) and two units' counts covary as
    −n (1/n)²; the same seed gives the same counts."""
    n, n_resamples = 11, 600  # more than one chunk of resamples
    counts = _unit_counts(n, n_resamples, 3, unit_block)
    assert (counts.sum(axis=1) == n).all()
    np.testing.assert_array_equal(counts, _unit_counts(n, n_resamples, 3, unit_block))
    assert not np.array_equal(counts, _unit_counts(n, n_resamples, 4, unit_block))
    # the moments over many resamples (unit 0 and the last unit sit in different blocks)
    many = _unit_counts(n, 40_000, 5, unit_block)
    p = 1 / n
    np.testing.assert_allclose(many.mean(axis=0), 1.0, atol=0.03)
    np.testing.assert_allclose(many.var(axis=0), n * p * (1 - p), atol=0.04)
    cov = np.cov(many[:, 0], many[:, -1])[0, 1]
    assert cov == pytest.approx(-n * p * p, abs=0.03)
    # each unit's count against Binomial(n, 1/n), by a chi-square test on 0, 1, 2, >= 3
    observed = np.bincount(np.minimum(many[:, 0], 3), minlength=4)
    pmf = stats.binom.pmf([0, 1, 2], n, p)
    expected = 40_000 * np.append(pmf, 1 - pmf.sum())
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    with pytest.raises(ValueError):
        next(unit_resample_blocks(0, 10, 1))


def test_vectorised_statistic_and_undefined_resamples():
    """A statistic with a leading resample axis and NaN where undefined: per-column
    intervals equal the column-by-column bootstrap; undefined resamples are counted."""
    terms = np.array([[1.0, np.nan], [2.0, np.nan], [3.0, 5.0], [4.0, np.nan]])
    both = bootstrap(
        np.ones(4, dtype=int), weighted_means(terms), n_resamples=300, confidence=0.9, seed=8
    )
    assert isinstance(both, Interval) and both.estimate.shape == (2,)
    np.testing.assert_allclose(both.estimate, [2.5, 5.0])
    first = bootstrap(
        np.ones(4, dtype=int), weighted_means(terms[:, 0]), n_resamples=300, confidence=0.9, seed=8
    )
    assert first.ci_low == both.ci_low[0] and first.ci_high == both.ci_high[0]
    # the second column is defined only when unit 3 is drawn: P(not drawn) = (3/4)^4
    assert both.n_undefined[0] == 0
    assert 0.2 < both.n_undefined[1] / 300 < 0.45
    assert both.ci_low[1] == both.ci_high[1] == 5.0


def test_bootstrap_many_on_threads_equals_each_cell_alone():
    """The cells drawn on two threads give, cell by cell, the intervals of bootstrap() on
    each alone: a kappa over 500 patterns (the multinomial), a per-unit mean over an odd
    number of units drawn in several blocks (the bounded-integer path), an entropy."""
    from concord_stats.rater_coefficients import fleiss_kappa_of_patterns

    rng = np.random.default_rng(3)
    patterns = rng.multinomial(9, [0.4, 0.3, 0.2, 0.1], size=500)
    kappa = fleiss_kappa_of_patterns(patterns)
    units = rng.normal(size=1001)
    cells = [
        (rng.integers(1, 20, size=500), kappa, 11),
        (np.ones(1001, dtype=int), weighted_means(units), 12),
        (np.array([7, 0, 3, 5]), shannon_entropy, 13),
    ] * 3
    kwargs = {"n_resamples": 700, "confidence": 0.9, "max_cells": 50_001}
    alone = [bootstrap(c, f, seed=seed, **kwargs) for c, f, seed in cells]
    threaded = bootstrap_many(cells, threads=2, **kwargs)
    assert [i.summary() for i in threaded] == [i.summary() for i in alone]
    assert [i.n_undefined for i in threaded] == [i.n_undefined for i in alone]
    assert threaded[0].summary() != threaded[1].summary()  # the cells are not one cell
