"""Accuracy, calibration and cross-lingual consistency (concord_stats.consistency) against
independent implementations: direct transcriptions of the definitions (RankC from Qi,
Fernández & Bisazza 2023; Brier; ECE with equal-width bins; lm-evaluation-harness's
``acc`` standard error), scipy (Jensen-Shannon), statsmodels (exact McNemar, Holm); on
normal and degenerate cases (one item, identical languages, all ties, two options, items
of different widths)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from concord_stats.consistency import (
    accuracy,
    brier_score,
    cohen_kappa,
    cohen_kappa_tables,
    exact_mcnemar,
    expected_calibration_error,
    holm,
    js_divergence,
    mean_interval,
    option_probabilities,
    paired_shares,
    rank_c,
    ratio_interval,
    ratio_sums,
    top_option,
)


def random_logliks(rng, n_items: int, n_options: int, ragged: bool = False) -> np.ndarray:
    x = rng.normal(-3, 2, (n_items, n_options))
    if ragged:  # items of 2..n_options options: the last columns absent
        widths = rng.integers(2, n_options + 1, n_items)
        x[np.arange(n_options)[None, :] >= widths[:, None]] = np.nan
    return x


# --- direct transcriptions, one item at a time ---------------------------------------------


def rank_c_by_definition(p1: list[float], p2: list[float]) -> float:
    """Qi et al. (2023), eq. 1-2: options ranked by probability, ties by key order."""
    n = len(p1)
    keys = range(n)
    rank1 = sorted(keys, key=lambda k: (-p1[k], k))
    rank2 = sorted(keys, key=lambda k: (-p2[k], k))
    weights = [math.exp(n - j) for j in range(1, n + 1)]
    total = sum(weights)
    return sum(
        weights[j - 1] / total * len(set(rank1[:j]) & set(rank2[:j])) / j for j in range(1, n + 1)
    )


def lm_eval_mean_stderr(values: list[float]) -> float:
    """lm_eval.api.metrics: sample_stddev(arr) / sqrt(len(arr))."""
    mu = sum(values) / len(values)
    return math.sqrt(sum((x - mu) ** 2 for x in values) / (len(values) - 1)) / math.sqrt(
        len(values)
    )


def ece_by_definition(p: np.ndarray, gold: np.ndarray, n_bins: int = 10) -> float:
    bins: list[list[tuple[float, float]]] = [[] for _ in range(n_bins)]
    for row, g in zip(p, gold, strict=True):
        options = [v for v in row if not math.isnan(v)]
        confidence = max(options)
        top = next(i for i, v in enumerate(row) if v == confidence)
        i = 0 if confidence == 0 else math.ceil(confidence * n_bins) - 1
        bins[min(i, n_bins - 1)].append((float(top == g), confidence))
    return sum(
        len(b) / len(gold) * abs(sum(c for c, _ in b) / len(b) - sum(f for _, f in b) / len(b))
        for b in bins
        if b
    )


# --- tests ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ragged", [False, True])
def test_rank_c_matches_the_papers_definition(seed, ragged):
    rng = np.random.default_rng(seed)
    x1 = random_logliks(rng, 60, 6, ragged)
    x2 = random_logliks(rng, 60, 6)
    x2[np.isnan(x1)] = np.nan  # the same item has the same options in every language
    x2[:10] = x1[:10]  # identical languages
    x2[10:15] = np.where(np.isnan(x1[10:15]), np.nan, 0.0)  # all ties in one language
    p1, p2 = option_probabilities(x1), option_probabilities(x2)
    got = rank_c(p1, p2)
    for i in range(len(p1)):
        width = int((~np.isnan(x1[i])).sum())
        want = rank_c_by_definition(list(p1[i, :width]), list(p2[i, :width]))
        assert got[i] == pytest.approx(want, abs=1e-12), i
    assert np.allclose(got[:10], 1.0)


def test_rank_c_two_options_and_one_item():
    # swapped pair: nothing shared at j = 1 (weight e/(e+1)), everything at j = 2
    got = rank_c(np.array([[0.7, 0.3]]), np.array([[0.2, 0.8]]))
    assert got.tolist() == pytest.approx([1 / (math.e + 1)])
    assert rank_c(np.array([[0.5, 0.5]]), np.array([[0.5, 0.5]])).tolist() == [1.0]


def test_option_probabilities_are_the_softmax_over_present_options():
    x = random_logliks(np.random.default_rng(7), 30, 5, ragged=True)
    p = option_probabilities(x)
    for row, probs in zip(x, p, strict=True):
        present = ~np.isnan(row)
        e = np.exp(row[present] - row[present].max())
        assert probs[present] == pytest.approx(e / e.sum())
        assert np.isnan(probs[~present]).all()
    assert np.isnan(option_probabilities(np.full((1, 3), np.nan))).all()


def test_top_option_takes_the_first_on_ties():
    p = np.array([[0.4, 0.4, 0.2], [0.1, 0.3, 0.6], [np.nan, np.nan, np.nan]])
    assert top_option(p).tolist() == [0, 2, -1]


@pytest.mark.parametrize("seed", range(3))
def test_js_divergence_is_scipys_distance_squared(seed):
    rng = np.random.default_rng(seed)
    x1, x2 = random_logliks(rng, 40, 4), random_logliks(rng, 40, 4)
    x2[:5] = x1[:5]
    p, q = option_probabilities(x1), option_probabilities(x2)
    want = np.array([jensenshannon(a, b, base=2) ** 2 for a, b in zip(p, q, strict=True)])
    assert js_divergence(p, q) == pytest.approx(want, abs=1e-12)
    assert np.allclose(js_divergence(p[:5], q[:5]), 0)


@pytest.mark.parametrize("values", [[1, 0, 1, 1, 0, 1, 1], [1, 1], [0, 1]])
def test_accuracy_and_its_standard_error_as_the_harness(values):
    acc, se, n = accuracy(np.array(values, dtype=bool))
    assert (acc, n) == (sum(values) / len(values), len(values))
    assert se == pytest.approx(lm_eval_mean_stderr(values))


def test_accuracy_of_one_or_no_item():
    acc, se, n = accuracy(np.array([True]))
    assert (acc, n) == (1.0, 1) and math.isnan(se)
    acc, se, n = accuracy(np.array([], dtype=bool))
    assert n == 0 and math.isnan(acc) and math.isnan(se)


@pytest.mark.parametrize("seed", range(3))
def test_brier_and_ece_match_their_definitions(seed):
    rng = np.random.default_rng(seed)
    x = random_logliks(rng, 200, 4, ragged=True)
    p = option_probabilities(x)
    widths = (~np.isnan(x)).sum(axis=1)
    gold = rng.integers(0, widths)
    want_brier = np.mean(
        [sum((p[i, k] - (k == gold[i])) ** 2 for k in range(widths[i])) for i in range(len(p))]
    )
    # the ragged items lack the last option
    assert (widths < 4).any() and np.isnan(p[widths < 4, 3]).all()
    assert brier_score(p, gold) == pytest.approx(want_brier, abs=1e-12)
    assert expected_calibration_error(p, gold) == pytest.approx(
        ece_by_definition(p, gold), abs=1e-12
    )


def test_calibration_edges():
    # perfectly confident and right: 0; confidence exactly on a bin edge stays in its bin
    assert brier_score(np.array([[1.0, 0.0]]), np.array([0])) == 0.0
    assert expected_calibration_error(np.array([[1.0, 0.0]]), np.array([0])) == 0.0
    edge = np.array([[0.5, 0.5], [0.5, 0.5]])
    assert expected_calibration_error(edge, np.array([0, 1])) == pytest.approx(0.0)
    assert math.isnan(brier_score(np.zeros((0, 2)), np.array([], dtype=int)))


@pytest.mark.parametrize("b, c", [(1, 9), (5, 5), (0, 7), (12, 3), (0, 0), (40, 25)])
def test_exact_mcnemar_matches_statsmodels(b, c):
    want = mcnemar([[10, b], [c, 10]], exact=True).pvalue if b + c else 1.0
    assert exact_mcnemar(b, c) == pytest.approx(want, abs=1e-12)


def test_paired_shares_from_the_two_by_two_table():
    """Each share and the difference from the table, McNemar on the discordant items, and a
    seeded percentile interval that a direct resampling of the items' paired differences
    matches in distribution (the same quantiles within Monte Carlo error)."""
    n, both, only_a, only_b = 40, 20, 8, 3
    got = paired_shares(n, both, only_a, only_b, n_resamples=4000, confidence=0.9, seed=7)
    assert (got.pct_a, got.pct_b, got.difference_pp) == (70.0, 57.5, 12.5)
    assert got.p_value == pytest.approx(mcnemar([[both, only_a], [only_b, 9]], exact=True).pvalue)
    assert got == paired_shares(n, both, only_a, only_b, n_resamples=4000, confidence=0.9, seed=7)
    d = np.array([100.0] * only_a + [-100.0] * only_b + [0.0] * (n - only_a - only_b))
    rng = np.random.default_rng(0)
    means = d[rng.integers(0, n, (20000, n))].mean(axis=1)
    assert (got.ci_low, got.ci_high) == pytest.approx(
        tuple(np.quantile(means, [0.05, 0.95])), abs=2.5
    )


def test_paired_shares_degenerate():
    """No discordant item: no difference in any resample, p = 1; one item alike."""
    same = paired_shares(5, 3, 0, 0, n_resamples=100, confidence=0.95, seed=1)
    assert (same.difference_pp, same.ci_low, same.ci_high, same.p_value) == (0, 0, 0, 1)
    one = paired_shares(1, 0, 1, 0, n_resamples=100, confidence=0.95, seed=1)
    assert (one.pct_a, one.pct_b, one.ci_low, one.ci_high, one.p_value) == (100, 0, 100, 100, 1)


def test_holm_matches_statsmodels():
    p = np.random.default_rng(3).uniform(0, 0.2, 25)
    p[4] = p[9]  # a tie
    assert holm(p) == pytest.approx(multipletests(p, method="holm")[1], abs=1e-12)
    with_nan = np.array([0.01, np.nan, 0.04])
    assert np.isnan(holm(with_nan)[1])
    assert holm(with_nan)[[0, 2]] == pytest.approx(multipletests([0.01, 0.04], method="holm")[1])


@pytest.mark.parametrize("seed", range(3))
def test_cohen_kappa_and_its_standard_error_match_sklearn_and_irrcac(seed):
    import pandas as pd
    from irrCAC.raw import CAC
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(seed)
    first = rng.choice(list("ABCD"), 40)
    second = np.where(rng.random(40) < 0.6, first, rng.choice(list("ABCD"), 40))
    kappa, se = cohen_kappa(first, second)
    assert kappa == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)
    # irrCAC's Conger kappa is Cohen's for two raters, with its standard error
    est = CAC(pd.DataFrame({"a": first, "b": second}), digits=12).conger()["est"]
    assert se == pytest.approx(est["se"], abs=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_cohen_kappa_from_contingency_tables_is_irrcacs_from_labels(seed):
    """Many pairs at once from their K × K tables: the same kappa as scikit-learn and the
    same standard error as irrCAC's conger() on the labels the tables count."""
    import pandas as pd
    from irrCAC.raw import CAC
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(seed)
    tables, labels = [], []
    for n in (40, 7, 300):
        first = rng.integers(0, 4, n)
        second = np.where(rng.random(n) < 0.6, first, rng.integers(0, 4, n))
        table = np.zeros((4, 4))
        np.add.at(table, (first, second), 1)
        tables.append(table)
        labels.append((first, second))
    kappa, se = cohen_kappa_tables(np.stack(tables))
    for i, (first, second) in enumerate(labels):
        assert kappa[i] == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)
        est = CAC(pd.DataFrame({"a": first, "b": second}), digits=12).conger()["est"]
        assert se[i] == pytest.approx(est["se"], abs=1e-9)


def test_cohen_kappa_tables_degenerate():
    one_category = np.zeros((1, 3, 3))
    one_category[0, 0, 0] = 5  # chance agreement 1: 0/0
    one_item = np.zeros((1, 3, 3))
    one_item[0, 1, 2] = 1
    kappa, se = cohen_kappa_tables(np.concatenate([one_category, one_item]))
    assert math.isnan(kappa[0]) and math.isnan(se[0])
    assert math.isnan(se[1])  # one item: no spread


@pytest.mark.parametrize(("k", "n", "p"), [(9, 10, 0.5), (3, 40, 0.2), (0, 12, 0.3), (5, 5, 0.9)])
def test_exact_binomial_test_is_the_sum_of_outcomes_no_more_likely(k, n, p):
    """Transcribed: Σ P(X = j) over j with P(X = j) ≤ P(X = k) (scipy's relative tolerance)."""
    from scipy.stats import binom

    from concord_stats.consistency import exact_binomial_test

    pmf = binom.pmf(np.arange(n + 1), n, p)
    want = min(1.0, pmf[pmf <= pmf[k] * (1 + 1e-7)].sum())
    assert exact_binomial_test(k, n, p) == pytest.approx(want, abs=1e-12)
    assert exact_binomial_test(0, 0, 0.5) == 1.0
    assert exact_binomial_test(0, 10, 0.0) == 1.0 and exact_binomial_test(1, 10, 0.0) == 0.0


def test_exact_binomial_test_is_scipys_binomtest_on_a_grid():
    """Every count of small n, and around the mode and in the tails of large n, against
    scipy.stats.binomtest (the implementation here avoids importing scipy.stats)."""
    from scipy.stats import binomtest

    from concord_stats.consistency import exact_binomial_test

    cases = [(k, n, p) for n in (1, 2, 7, 30) for p in (0.05, 0.3, 0.5, 0.77) for k in range(n + 1)]
    cases += [
        (k, 1_000_000, p)
        for p in (0.3, 0.5)
        for k in (0, 299_000, 299_800, 300_000, 300_400, 301_500, 499_000, 500_000, 500_700)
    ]
    cases += [(k, 3_333_320, 1 / 3) for k in (1_108_000, 1_111_107, 1_113_000)]
    for k, n, p in cases:
        assert exact_binomial_test(k, n, p) == pytest.approx(
            binomtest(k, n, p).pvalue, rel=1e-9, abs=1e-12
        ), (k, n, p)


def test_cohen_kappa_degenerate():
    kappa, se = cohen_kappa(np.array(list("AAAA")), np.array(list("AAAA")))
    assert math.isnan(kappa)  # chance agreement 1: 0/0
    assert [math.isnan(v) for v in cohen_kappa(np.array([]), np.array([]))] == [True, True]


def test_mean_interval_is_the_normal_approximation():
    values = np.array([0.2, 0.5, 0.9, 0.4, 0.7])
    mean, se, low, high, n = mean_interval(values, 0.9)
    assert (mean, n) == (pytest.approx(0.54), 5)
    assert se == pytest.approx(values.std(ddof=1) / math.sqrt(5))
    assert (low, high) == pytest.approx(
        (mean - 1.6448536269514722 * se, mean + 1.6448536269514722 * se)
    )
    assert math.isnan(mean_interval(np.array([1.0]), 0.95)[1])


def test_ratio_interval_is_the_harness_error_with_one_answer_per_item():
    rng = np.random.default_rng(3)
    correct = rng.integers(0, 2, 50)
    share, se, low, high, n = ratio_interval(*ratio_sums(correct, np.ones(50, dtype=int)), 0.95)
    p = correct.mean()
    assert share == pytest.approx(p) and n == 50
    assert se == pytest.approx(np.sqrt(p * (1 - p) / 49))  # lm-eval's mean_stderr
    assert (low, high) == pytest.approx((p - 1.959963984540054 * se, p + 1.959963984540054 * se))


def test_ratio_interval_is_the_cluster_bootstrap_error_with_items_as_the_unit():
    """Items of 1-5 graded languages whose answers go together: the linearised error is the
    standard deviation of the pooled share over items drawn with replacement."""
    rng = np.random.default_rng(11)
    graded = rng.integers(1, 6, 400)
    ability = rng.uniform(0.1, 0.9, 400)  # an item's languages share its difficulty
    correct = rng.binomial(graded, ability)
    share, se, *_ = ratio_interval(*ratio_sums(correct, graded), 0.95)
    # from the sums, the linearisation's definition (over the clusters themselves)
    spread = np.sum((correct - share * graded) ** 2)
    assert se == pytest.approx(math.sqrt(400 / 399 * spread) / graded.sum(), rel=1e-12)
    draws = rng.integers(0, 400, (20_000, 400))
    pooled = correct[draws].sum(1) / graded[draws].sum(1)
    assert share == pytest.approx(correct.sum() / graded.sum())
    assert se == pytest.approx(pooled.std(ddof=1), rel=0.03)
    # answers counted as independent would understate it
    assert se > np.sqrt(share * (1 - share) / graded.sum()) * 1.2


@pytest.mark.parametrize(
    ("correct", "graded", "want"),
    [
        ([1], [3], (1 / 3, None)),  # one item: a share, no error
        ([], [], (None, None)),  # no item
        ([0, 0], [0, 0], (None, None)),  # nothing graded
        ([2, 3], [2, 3], (1.0, 0.0)),  # all correct: no spread
    ],
)
def test_ratio_interval_degenerate_cases(correct, graded, want):
    sums = ratio_sums(np.array(correct, dtype=int), np.array(graded, dtype=int))
    share, se, low, high, _ = ratio_interval(*sums, 0.95)
    for got, expected in ((share, want[0]), (se, want[1])):
        assert np.isnan(got) if expected is None else got == pytest.approx(expected)
    if want[1] == 0.0:
        assert (low, high) == (1.0, 1.0)


def test_the_projects_calibration_bins_are_the_librarys():
    """The var's default (concord_common.settings) and concord_stats' agree: a notebook that
    calls expected_calibration_error as it is gets the warehouse's figure."""
    from concord_common.settings import DBT_VARS
    from concord_stats.consistency import N_CALIBRATION_BINS

    assert DBT_VARS["mcq_calibration_bins"].default == N_CALIBRATION_BINS
