"""concord_stats.paired against scipy.stats.permutation_test and scipy.stats.bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from concord_stats.paired import MAX_EXACT_UNITS, bootstrap_mean_interval, sign_flip_test


def _scipy_p(d, **kwargs):
    return stats.permutation_test(
        (d,),
        lambda x, axis: np.mean(x, axis=axis),
        vectorized=True,
        permutation_type="samples",
        alternative="two-sided",
        **kwargs,
    ).pvalue


@pytest.mark.parametrize("seed", range(6))
def test_exact_sign_flip_equals_scipy(seed):
    rng = np.random.default_rng(seed)
    d = rng.normal(0.3 * (seed % 3), 1, size=10)
    p, n_used, exact = sign_flip_test(d)
    assert exact and n_used == 1024
    assert p == pytest.approx(_scipy_p(d, n_resamples=np.inf), abs=1e-12)


def test_exact_on_ties_and_zeros():
    d = np.array([0.5, -0.5, 0.5, -0.5, 0.0, 0.0, 0.25, -0.25])
    p, _, _ = sign_flip_test(d)
    assert p == pytest.approx(_scipy_p(d, n_resamples=np.inf), abs=1e-12)
    assert p == 1.0  # observed mean 0: every relabelling is at least as extreme
    p_all_zero, _, _ = sign_flip_test(np.zeros(10))
    assert p_all_zero == 1.0


def test_all_positive_gives_the_smallest_p():
    p, n_used, _ = sign_flip_test(np.arange(1.0, 11.0))
    assert p == pytest.approx(2 / 1024)  # only the identity and the full flip are as extreme


def test_vectorised_over_groups():
    rng = np.random.default_rng(7)
    d = rng.normal(0.2, 1, size=(3, 10))
    p, _, _ = sign_flip_test(d)
    assert p.shape == (3,)
    for row, value in zip(d, p, strict=True):
        assert value == pytest.approx(sign_flip_test(row)[0])


def test_monte_carlo_when_too_many_units():
    rng = np.random.default_rng(1)
    d = rng.normal(0.4, 1, size=MAX_EXACT_UNITS + 5)
    p, n_used, exact = sign_flip_test(d, n_permutations=20000, seed=3)
    assert not exact and n_used == 20000
    want = _scipy_p(d, n_resamples=20000, rng=np.random.default_rng(0))
    assert p == pytest.approx(want, abs=0.02)  # two Monte Carlo estimates of one p-value
    assert sign_flip_test(d, n_permutations=20000, seed=3)[0] == p  # same seed, same p
    with pytest.raises(ValueError, match="n_permutations"):
        sign_flip_test(d)


def test_small_permutation_budget_samples_instead():
    d = np.arange(1.0, 11.0)
    _, n_used, exact = sign_flip_test(d, n_permutations=100, seed=0)
    assert not exact and n_used == 100


def test_bootstrap_interval_matches_a_direct_computation():
    rng = np.random.default_rng(11)
    d = rng.normal(-0.1, 0.3, size=10)
    interval = bootstrap_mean_interval(d, n_resamples=5000, confidence=0.9, seed=5)
    low, high = interval.ci_low, interval.ci_high
    assert interval.estimate == pytest.approx(d.mean()) and interval.n_undefined == 0
    idx = np.random.default_rng(5).integers(0, 10, size=(5000, 10))
    means = d[idx].mean(axis=1)
    assert low == pytest.approx(np.quantile(means, 0.05))
    assert high == pytest.approx(np.quantile(means, 0.95))


def test_bootstrap_interval_close_to_scipy():
    rng = np.random.default_rng(12)
    d = rng.normal(0.2, 0.5, size=10)
    interval = bootstrap_mean_interval(d, n_resamples=40000, confidence=0.95, seed=1)
    low, high = interval.ci_low, interval.ci_high
    ref = stats.bootstrap(
        (d,),
        np.mean,
        n_resamples=40000,
        confidence_level=0.95,
        method="percentile",
        rng=np.random.default_rng(2),
    ).confidence_interval
    spread = d.std(ddof=1) / np.sqrt(len(d))
    assert low == pytest.approx(ref.low, abs=0.05 * spread)
    assert high == pytest.approx(ref.high, abs=0.05 * spread)
    assert low <= d.mean() <= high


def test_bootstrap_same_seed_same_interval_and_vectorised():
    d = np.random.default_rng(4).normal(size=(2, 10))
    a = bootstrap_mean_interval(d, n_resamples=500, confidence=0.95, seed=9)
    b = bootstrap_mean_interval(d, n_resamples=500, confidence=0.95, seed=9)
    np.testing.assert_array_equal(a.ci_low, b.ci_low)
    assert a.ci_low.shape == (2,)
    single = bootstrap_mean_interval(d[1], n_resamples=500, confidence=0.95, seed=9)
    assert single.ci_low == pytest.approx(a.ci_low[1])
    assert single.ci_high == pytest.approx(a.ci_high[1])


def test_degenerate_input():
    with pytest.raises(ValueError, match="empty"):
        sign_flip_test(np.array([]))
    with pytest.raises(ValueError, match="NaN"):
        bootstrap_mean_interval([0.1, np.nan], n_resamples=10, confidence=0.9, seed=0)
    one = bootstrap_mean_interval([0.3], n_resamples=10, confidence=0.9, seed=0)
    assert one.ci_low == one.ci_high == pytest.approx(0.3)
    assert sign_flip_test([0.3])[0] == 1.0
