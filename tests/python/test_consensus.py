"""Consensus rankings (concord_stats.consensus) against brute force and scipy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from concord_stats.consensus import (
    KEMENY_MAX_EXACT,
    borda,
    kemeny,
    kemeny_cost,
    position_mode,
    ranks_to_orders,
)
from concord_stats.kendall import orders_to_ranks


def random_profiles(seed: int, n_scenarios: int, n_raters: int, n_tasks: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    orders = np.array(
        [[rng.permutation(n_tasks) for _ in range(n_raters)] for _ in range(n_scenarios)]
    )
    return orders_to_ranks(orders).astype(float)


def kendall_distance(x, y) -> float:
    """Discordant pairs between strict rankings, from scipy's tau: (1 - tau) / 2 * C(n, 2)."""
    n = len(x)
    return (1 - stats.kendalltau(x, y).statistic) / 2 * n * (n - 1) / 2


def brute_force_kemeny(profile: np.ndarray) -> tuple[float, list[tuple[int, ...]]]:
    """Minimum total Kendall distance and every order (task indices) that attains it.

    Straight from the definition: count, for every candidate order and rater, the task
    pairs the two put in opposite orders.
    """
    n = profile.shape[1]
    orders = list(itertools.permutations(range(n)))
    candidates = np.argsort(np.array(orders), axis=1)  # rank (0-based) of each task
    a, b = np.triu_indices(n, k=1)
    candidate_side = np.sign(candidates[:, b] - candidates[:, a])
    rater_side = np.sign(profile[:, b] - profile[:, a])
    costs = (candidate_side[:, None, :] * rater_side[None, :, :] < 0).sum(axis=(1, 2))
    best = costs.min()
    return float(best), [o for o, c in zip(orders, costs, strict=True) if c == best]


def is_permutation(ranks: np.ndarray) -> bool:
    n = ranks.shape[-1]
    return bool((np.sort(ranks, axis=-1) == np.arange(1, n + 1)).all())


# --- Kemeny -----------------------------------------------------------------------------


@pytest.mark.parametrize("n_tasks, n_raters", [(3, 2), (4, 5), (5, 6), (6, 4), (8, 3)])
def test_kemeny_matches_brute_force(n_tasks, n_raters):
    profiles = random_profiles(10 + n_tasks, 25, n_raters, n_tasks)
    consensus = kemeny(profiles)
    costs = kemeny_cost(profiles, consensus)
    for profile, result, cost in zip(profiles, consensus, costs, strict=True):
        best_cost, best_orders = brute_force_kemeny(profile)
        assert sum(kendall_distance(result, rater) for rater in profile) == pytest.approx(best_cost)
        assert cost == best_cost
        # Ties between optimal orders go to the lexicographically smallest order.
        assert tuple(ranks_to_orders(result)) == min(best_orders)


def test_kemeny_fallback_beyond_exact_size_is_local_optimum_and_deterministic():
    assert KEMENY_MAX_EXACT == 8
    profiles = random_profiles(20, 6, 7, 10)  # 10 tasks > 8: heuristic
    consensus = kemeny(profiles)
    assert is_permutation(consensus)
    np.testing.assert_array_equal(consensus, kemeny(profiles))
    assert (kemeny_cost(profiles, consensus) <= kemeny_cost(profiles, borda(profiles))).all()
    for profile, result in zip(profiles, consensus, strict=True):
        order = list(ranks_to_orders(result))
        for k in range(len(order) - 1):  # no adjacent swap lowers the cost
            swapped = order.copy()
            swapped[k], swapped[k + 1] = swapped[k + 1], swapped[k]
            assert kemeny_cost(profile, orders_to_ranks(np.array(swapped))) >= kemeny_cost(
                profile, result
            )


def test_kemeny_fallback_never_beats_exact():
    profiles = random_profiles(21, 40, 5, 5)
    exact = kemeny_cost(profiles, kemeny(profiles))
    heuristic = kemeny_cost(profiles, kemeny(profiles, max_exact=3))
    assert (heuristic >= exact).all()


def test_kemeny_fallback_finds_condorcet_order():
    # Raters are noisy copies of one order with a strict majority on every pair: the
    # Condorcet order is the unique Kemeny order, and the heuristic must find it.
    truth = np.arange(1, 11, dtype=float)
    profile = np.vstack([truth, truth, truth, truth[::-1], np.roll(truth, 1)])
    np.testing.assert_array_equal(kemeny(profile, max_exact=4), truth)


# --- Borda ------------------------------------------------------------------------------


def test_borda_matches_scipy_rankdata_of_mean_rank():
    profiles = random_profiles(30, 60, 4, 5)
    expected = [stats.rankdata(p.mean(axis=0), method="ordinal") for p in profiles]
    np.testing.assert_array_equal(borda(profiles), expected)


def test_borda_with_tied_ranks_and_missing_raters():
    profile = np.array([[1.5, 1.5, 3.0], [2.0, 1.0, 3.0], [np.nan] * 3])
    # Mean ranks 1.75, 1.25, 3: task 1 first.
    assert borda(profile).tolist() == [2, 1, 3]
    tie = np.array([[1.0, 2.0], [2.0, 1.0]])
    assert borda(tie).tolist() == [1, 2]  # equal mean rank: smaller task index first


# --- position-wise mode ---------------------------------------------------------------


def raw_position_mode(profile: np.ndarray) -> list[int]:
    """The document's rule, literally: per position the most frequent task, smaller id."""
    orders = ranks_to_orders(profile)
    result = []
    for position in range(profile.shape[1]):
        counts = np.bincount(orders[:, position], minlength=profile.shape[1])
        result.append(int(np.argmax(counts)))
    return result


def test_position_mode_equals_raw_mode_when_that_is_a_permutation():
    profiles = random_profiles(40, 300, 5, 4)
    consensus = position_mode(profiles)
    assert is_permutation(consensus)
    checked = 0
    for profile, result in zip(profiles, consensus, strict=True):
        raw = raw_position_mode(profile)
        if sorted(raw) == list(range(4)):
            assert list(ranks_to_orders(result)) == raw
            checked += 1
    assert checked > 50


def test_position_mode_repair_example():
    # Orders (task indices): task 0 is the mode of positions 1 and 2.
    orders = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [2, 0, 1]])
    assert raw_position_mode(orders_to_ranks(orders).astype(float)) == [0, 0, 1]
    # Position 1 -> task 0; position 2: task 0 is placed, tasks 1 and 2 have one vote each,
    # tie to task 1; position 3 -> task 2.
    result = position_mode(orders_to_ranks(orders).astype(float))
    assert list(ranks_to_orders(result)) == [0, 1, 2]


def test_position_mode_rejects_ties_and_handles_missing_raters():
    with pytest.raises(ValueError, match="strict"):
        position_mode(np.array([[1.0, 1.0, 3.0]]))
    profile = np.array([[2.0, 1.0, 3.0], [np.nan] * 3])
    assert position_mode(profile).tolist() == [2, 1, 3]
    with pytest.raises(ValueError, match="no rater"):
        position_mode(np.full((2, 3), np.nan))
    with pytest.raises(ValueError, match="some tasks but not all"):
        borda(np.array([[1.0, np.nan, 2.0]]))


# --- properties -------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda n: st.lists(st.permutations(list(range(n))), min_size=1, max_size=6)
    )
)
def test_every_method_gives_a_permutation_and_respects_unanimity(orders):
    profile = orders_to_ranks(np.array(orders)).astype(float)
    for method in (position_mode, borda, kemeny):
        result = method(profile)
        assert is_permutation(result)
        if (profile == profile[0]).all():
            np.testing.assert_array_equal(result, profile[0])
    # A Kemeny order is never worse than the Borda or repaired mode order.
    best = kemeny_cost(profile, kemeny(profile))
    assert best <= kemeny_cost(profile, borda(profile))
    assert best <= kemeny_cost(profile, position_mode(profile))
