"""Property-based tests (hypothesis) of the entropy and bootstrap helpers: bounds, the
entropy maximum, invariance under relabelling categories and under reordering the
bootstrap replicates, agreement with scipy/numpy on arbitrary input, and reproducibility
from the seed. The rater and ranking statistics have their own property tests."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import entropy as scipy_entropy

from concord_stats.bootstrap import (
    bootstrap,
    bootstrap_indices,
    derive_seed,
    make_rng,
    percentile_interval,
    resample_counts,
    weighted_means,
)
from concord_stats.entropy import normalised_entropy, shannon_entropy

SETTINGS = settings(max_examples=60, deadline=None)
counts_lists = st.lists(st.integers(0, 1000), min_size=1, max_size=12).filter(lambda c: sum(c) > 0)
seeds = st.integers(0, 2**32 - 1)
confidences = st.floats(0.5, 0.99)


# --- entropy ---------------------------------------------------------------------------------


@SETTINGS
@given(counts_lists, st.sampled_from([2.0, math.e, 10.0]))
def test_entropy_matches_scipy_and_lies_between_zero_and_log_k(counts, base):
    h = shannon_entropy(counts, base=base)
    assert isinstance(h, float) and h >= 0
    assert math.isclose(h, scipy_entropy(counts, base=base), rel_tol=1e-9, abs_tol=1e-12)
    assert h <= math.log(len(counts), base) + 1e-9


@SETTINGS
@given(st.integers(1, 12), st.integers(1, 500))
def test_entropy_maximum_is_log_k_and_reached_by_the_uniform_distribution(k, n):
    assert math.isclose(shannon_entropy([n] * k), math.log2(k), abs_tol=1e-12)
    assert math.isclose(normalised_entropy([n] * k, n_categories=k), 1.0) or k == 1


@SETTINGS
@given(counts_lists.filter(lambda c: len(set(c)) > 1))
def test_any_non_uniform_distribution_is_below_the_maximum(counts):
    assert shannon_entropy(counts) < math.log2(len(counts)) - 1e-12


@SETTINGS
@given(counts_lists, st.randoms(use_true_random=False))
def test_entropy_is_invariant_under_relabelling_categories(counts, random):
    relabelled = list(counts)
    random.shuffle(relabelled)
    assert math.isclose(shannon_entropy(counts), shannon_entropy(relabelled), abs_tol=1e-12)


@SETTINGS
@given(counts_lists, st.integers(1, 50), st.integers(0, 5))
def test_entropy_depends_on_shares_only_and_ignores_empty_categories(counts, scale, n_empty):
    h = shannon_entropy(counts)
    assert math.isclose(h, shannon_entropy([c * scale for c in counts]), abs_tol=1e-12)
    assert math.isclose(h, shannon_entropy([*counts, *[0] * n_empty]), abs_tol=1e-12)


@SETTINGS
@given(counts_lists.filter(lambda c: len(c) >= 3 and c[0] + c[1] > 0))
def test_entropy_grouping_rule(counts):
    """Shannon's grouping axiom (Shannon 1948, property 3), with q = p1 + p2:
    H(p1, p2, p3, ...) = H(q, p3, ...) + q H(p1 / q, p2 / q)."""
    n = sum(counts)
    merged = [counts[0] + counts[1], *counts[2:]]
    share = (counts[0] + counts[1]) / n
    rhs = shannon_entropy(merged) + share * shannon_entropy(counts[:2])
    assert math.isclose(shannon_entropy(counts), rhs, abs_tol=1e-9)


@SETTINGS
@given(st.lists(counts_lists.filter(lambda c: len(c) == 4), min_size=1, max_size=6))
def test_entropy_vectorised_equals_row_by_row(rows):
    array = np.array(rows)
    expected = [shannon_entropy(row) for row in rows]
    np.testing.assert_allclose(shannon_entropy(array, axis=-1), expected, atol=1e-12)
    normalised = normalised_entropy(array, n_categories=4)
    assert ((normalised >= -1e-12) & (normalised <= 1 + 1e-12)).all()


# --- percentile interval ---------------------------------------------------------------------

replicate_lists = st.lists(
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False), min_size=1, max_size=200
)


@SETTINGS
@given(replicate_lists, confidences)
def test_percentile_interval_matches_numpy_and_is_ordered_within_the_replicates(reps, c):
    low, high = percentile_interval(np.array(reps), c)
    alpha = (1 - c) / 2
    assert math.isclose(low, np.quantile(reps, alpha), rel_tol=1e-12, abs_tol=1e-9)
    assert math.isclose(high, np.quantile(reps, 1 - alpha), rel_tol=1e-12, abs_tol=1e-9)
    assert min(reps) <= low <= high <= max(reps)


@SETTINGS
@given(replicate_lists, confidences, st.randoms(use_true_random=False))
def test_percentile_interval_ignores_the_order_of_replicates(reps, c, random):
    shuffled = list(reps)
    random.shuffle(shuffled)
    assert percentile_interval(np.array(reps), c) == percentile_interval(np.array(shuffled), c)


@SETTINGS
@given(replicate_lists, st.floats(0.5, 0.8), st.floats(0.01, 0.19))
def test_a_higher_confidence_gives_a_wider_nested_interval(reps, c, extra):
    low, high = percentile_interval(np.array(reps), c)
    wider_low, wider_high = percentile_interval(np.array(reps), c + extra)
    assert wider_low <= low + 1e-9 and high <= wider_high + 1e-9


@SETTINGS
@given(replicate_lists, confidences, st.floats(0.1, 100), st.floats(-100, 100))
def test_percentile_interval_is_equivariant_under_increasing_affine_maps(reps, c, a, b):
    low, high = percentile_interval(np.array(reps), c)
    mapped_low, mapped_high = percentile_interval(a * np.array(reps) + b, c)
    assert math.isclose(mapped_low, a * low + b, rel_tol=1e-9, abs_tol=1e-6)
    assert math.isclose(mapped_high, a * high + b, rel_tol=1e-9, abs_tol=1e-6)


# --- resampling ------------------------------------------------------------------------------


@SETTINGS
@given(counts_lists, st.integers(1, 300), seeds)
def test_resampled_counts_keep_n_and_the_empty_categories(counts, n_resamples, seed):
    drawn = resample_counts(np.array(counts), n_resamples, make_rng(seed))
    assert drawn.shape == (n_resamples, len(counts))
    assert (drawn.sum(axis=1) == sum(counts)).all() and (drawn >= 0).all()
    assert (drawn[:, np.array(counts) == 0] == 0).all()
    again = resample_counts(np.array(counts), n_resamples, make_rng(seed))
    np.testing.assert_array_equal(drawn, again)  # same seed, same numbers


@SETTINGS
@given(st.integers(1, 300), st.integers(1, 50), seeds)
def test_bootstrap_indices_lie_in_range(n, n_resamples, seed):
    idx = bootstrap_indices(make_rng(seed), n, n_resamples)
    assert idx.shape == (n_resamples, n) and idx.min() >= 0 and idx.max() < n


def share_of_first(counts: np.ndarray) -> np.ndarray:
    counts = np.asarray(counts, dtype=float)
    return counts[:, 0] / counts.sum(axis=1)


@SETTINGS
@given(counts_lists, confidences, seeds)
def test_bootstrap_of_a_share_is_a_proportion_interval_around_the_estimate(counts, c, seed):
    result = bootstrap(
        np.array(counts), share_of_first, n_resamples=200, confidence=c, seed=seed
    ).summary()
    assert math.isclose(result["estimate"], counts[0] / sum(counts))
    assert 0 <= result["ci_low"] <= result["ci_high"] <= 1
    assert 0 <= result["boot_mean"] <= 1
    again = bootstrap(
        np.array(counts), share_of_first, n_resamples=200, confidence=c, seed=seed
    ).summary()
    assert again == result


@SETTINGS
@given(st.integers(1, 500), st.integers(1, 8), confidences, seeds)
def test_a_sample_without_spread_gives_a_zero_width_interval(n, k, c, seed):
    counts = np.zeros(k, dtype=int)
    counts[0] = n
    result = bootstrap(counts, share_of_first, n_resamples=100, confidence=c, seed=seed).summary()
    assert result["ci_low"] == result["ci_high"] == result["estimate"] == 1.0
    entropy = bootstrap(
        counts, lambda r: shannon_entropy(r, axis=-1), n_resamples=100, confidence=c, seed=seed
    ).summary()
    assert entropy["ci_low"] == entropy["ci_high"] == entropy["estimate"] == 0.0


@SETTINGS
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=60), confidences, seeds)
def test_bootstrap_of_the_mean_stays_within_the_data(values, c, seed):
    # every value its own row (counts all 1): the mean of the drawn rows
    result = bootstrap(
        np.ones(len(values), dtype=int),
        weighted_means(np.array(values)),
        n_resamples=100,
        confidence=c,
        seed=seed,
    )
    assert min(values) - 1e-9 <= result.ci_low <= result.ci_high <= max(values) + 1e-9
    assert math.isclose(result.estimate, float(np.mean(values)), rel_tol=1e-9, abs_tol=1e-9)


@SETTINGS
@given(seeds, st.lists(st.text(max_size=8), min_size=1, max_size=4))
def test_derived_seeds_are_reproducible_and_depend_on_the_key(seed, key):
    assert derive_seed(seed, *key) == derive_seed(seed, *key)
    assert derive_seed(seed, *key) != derive_seed(seed, *key, "another cell")
    assert 0 <= derive_seed(seed, *key) < 2**32
