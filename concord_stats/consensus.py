"""Consensus rankings of one scenario's tasks from several raters.

Input everywhere: ``ranks`` of shape (..., m, n): m raters (rows) giving each of n tasks
(columns) its position 1..n (see :mod:`concord_stats.kendall` for orders vs ranks). A row
that is all NaN is a rater who did not rank the scenario and is left out. Every function
returns the consensus as a rank vector (..., n) of integers 1..n -- always a permutation --
and breaks every tie deterministically in favour of the smaller task index (callers index
tasks in sorted task-id order, so "smaller index" means "smaller task id").

Methods:

* :func:`position_mode` -- the ordered-task document's position-wise mode, repaired so that
  it is a permutation (the raw mode can put one task in two positions).
* :func:`borda` -- tasks sorted by mean rank (Borda count; de Borda 1781).
* :func:`kemeny` -- the order minimising the total Kendall distance to the raters
  (Kemeny 1959), exact by enumeration up to :data:`KEMENY_MAX_EXACT` tasks.
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = [
    "KEMENY_MAX_EXACT",
    "position_mode",
    "borda",
    "kemeny",
    "kemeny_cost",
    "preference_matrix",
    "ranks_to_orders",
]

# Exact Kemeny enumerates n! orders: 8! = 40 320 candidates x 64 pair indicators is a few MB
# and milliseconds per scenario; 9! is already 9x that, 10! 90x.
KEMENY_MAX_EXACT = 8


def _validated(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (ranks as float, rater-present mask); raise on incomplete or empty input."""
    ranks = np.asarray(ranks, dtype=float)
    if ranks.ndim < 2:
        raise ValueError("consensus needs a (raters, tasks) array")
    missing = np.isnan(ranks)
    row_missing = missing.all(axis=-1)
    partial = missing.any(axis=-1) & ~row_missing
    if partial.any():
        where = tuple(int(i) for i in np.argwhere(partial)[0])
        raise ValueError(f"rater row {where} ranks some tasks but not all")
    present = ~row_missing
    empty = ~present.any(axis=-1)
    if empty.any():
        where = tuple(int(i) for i in np.argwhere(empty)[0])
        raise ValueError(f"no rater ranked the tasks of slice {where}: no consensus")
    return ranks, present


def ranks_to_orders(ranks: np.ndarray) -> np.ndarray:
    """Inverse of ``orders_to_ranks`` for strict rank vectors: task index per position.

    Parameters
    ----------
    ranks : array_like, shape (..., n)
        Strict rank vectors (1-based position per task).

    Returns
    -------
    numpy.ndarray of int, shape (..., n)
        0-based task index per position.

    Examples
    --------
    >>> ranks_to_orders(np.array([4, 2, 1, 3, 5])).tolist()
    [2, 1, 3, 0, 4]
    """
    return np.argsort(np.asarray(ranks), axis=-1, kind="stable")


def _ranks_from_keys(keys: np.ndarray) -> np.ndarray:
    """Rank 1..n by ascending key, ties to the smaller task index (stable sort)."""
    order = np.argsort(keys, axis=-1, kind="stable")
    ranks = np.empty(order.shape, dtype=np.int64)
    positions = np.broadcast_to(np.arange(1, keys.shape[-1] + 1), order.shape)
    np.put_along_axis(ranks, order, positions, axis=-1)
    return ranks


def position_mode(ranks: np.ndarray) -> np.ndarray:
    """Position-wise mode, repaired into a permutation.

    The document's consensus is m_q[t] = mode_i r_iq[t], the task most raters put in
    position t, ties to the smaller task. It can repeat a task (task a is the mode of
    positions 1 and 2), so it is built greedily instead: for t = 1..n put in position t the
    task, among those not placed yet, that most raters put in position t; ties (including
    a position where no unplaced task got a vote) go to the smaller task index. Whenever
    the raw mode is a permutation the greedy result equals it.

    Rankings must be strict (each present row a permutation of 1..n): position-wise votes
    are undefined for tied ranks, so ties raise ValueError.

    Parameters
    ----------
    ranks : array_like, shape (..., m, n)
        Strict rankings; an all-NaN row is an absent rater.

    Returns
    -------
    numpy.ndarray of int64, shape (..., n)
        The consensus ranks, a permutation of 1..n.

    Examples
    --------
    Task 0 is the raw mode of positions 1 and 2; position 2 goes to task 1 (a tie of one
    vote each between tasks 1 and 2, to the smaller index):

    >>> position_mode(np.array([[1, 2, 3], [1, 3, 2], [2, 1, 3], [2, 3, 1]])).tolist()
    [1, 2, 3]
    """
    ranks, present = _validated(ranks)
    n = ranks.shape[-1]
    strict = (np.sort(ranks, axis=-1) == np.arange(1, n + 1)).all(axis=-1)
    if (present & ~strict).any():
        where = tuple(int(i) for i in np.argwhere(present & ~strict)[0])
        raise ValueError(f"position_mode needs strict rankings 1..{n}; row {where} is not")
    # votes[..., p, t]: raters who put task t in position p + 1.
    positions = np.arange(1, n + 1)[:, None]
    votes = ((ranks[..., None, :] == positions) & present[..., None, None]).sum(axis=-3)
    placed = np.zeros(votes.shape[:-2] + (n,), dtype=bool)
    result = np.zeros(placed.shape, dtype=np.int64)
    for p in range(n):
        candidates = np.where(placed, -1, votes[..., p, :])
        choice = np.argmax(candidates, axis=-1)[..., None]  # first maximum: smaller task
        np.put_along_axis(placed, choice, True, axis=-1)
        np.put_along_axis(result, choice, p + 1, axis=-1)
    return result


def borda(ranks: np.ndarray) -> np.ndarray:
    """Borda consensus: tasks ordered by their mean rank over the raters present.

    Borda score of task t = sum_i (n - r_it), so a higher score is a lower mean rank
    (de Borda 1781; Young 1974). Ties of mean rank go to the smaller task index.
    Ties within a rater's ranking are allowed (use mid-ranks).

    Parameters
    ----------
    ranks : array_like, shape (..., m, n)
        Rankings (mid-ranks for ties); an all-NaN row is an absent rater.

    Returns
    -------
    numpy.ndarray of int64, shape (..., n)
        The consensus ranks, a permutation of 1..n.

    Examples
    --------
    The Tennessee capital election (tasks Memphis, Nashville, Chattanooga, Knoxville; 42,
    26, 15 and 17 voters), whose Borda points are 126, 194, 173 and 107 (Wikipedia, "Borda
    count"):

    >>> ranks = np.repeat(np.array([[1, 2, 3, 4], [4, 1, 2, 3], [4, 3, 1, 2], [4, 3, 2, 1]]),
    ...                   [42, 26, 15, 17], axis=0)
    >>> (4 - ranks).sum(axis=0).tolist()
    [126, 194, 173, 107]
    >>> borda(ranks).tolist()
    [3, 1, 2, 4]
    """
    ranks, present = _validated(ranks)
    totals = np.where(present[..., None], ranks, 0.0).sum(axis=-2)
    mean_rank = totals / present.sum(axis=-1)[..., None]
    # Round so that float noise never decides a tie between equal means.
    return _ranks_from_keys(np.round(mean_rank, 9))


def preference_matrix(ranks: np.ndarray) -> np.ndarray:
    """P[..., a, b] = number of present raters ranking task a strictly before task b.

    Parameters
    ----------
    ranks : array_like, shape (..., m, n)
        Rankings; an all-NaN row is an absent rater.

    Returns
    -------
    numpy.ndarray of int, shape (..., n, n)
        The preference counts.

    Examples
    --------
    The Tennessee election (see :func:`borda`): 32 of 100 voters put Chattanooga before
    Nashville and 17 Knoxville before Chattanooga (Electowiki, "Kemeny-Young method"):

    >>> ranks = np.repeat(np.array([[1, 2, 3, 4], [4, 1, 2, 3], [4, 3, 1, 2], [4, 3, 2, 1]]),
    ...                   [42, 26, 15, 17], axis=0)
    >>> preference_matrix(ranks).tolist()
    [[0, 42, 42, 42], [58, 0, 68, 68], [58, 32, 0, 83], [58, 32, 17, 0]]
    """
    ranks, present = _validated(ranks)
    before = ranks[..., :, None] < ranks[..., None, :]
    return (before & present[..., None, None]).sum(axis=-3)


def kemeny_cost(ranks: np.ndarray, consensus: np.ndarray) -> np.ndarray:
    """Total Kendall distance from ``consensus`` (..., n) to the raters' rankings.

    cost = sum_{a before b in consensus} P[b, a]: the number of (rater, task pair)
    disagreements. A pair tied by a rater counts for neither order.

    Parameters
    ----------
    ranks : array_like, shape (..., m, n)
        Rankings; an all-NaN row is an absent rater.
    consensus : array_like, shape (..., n)
        The consensus ranks.

    Returns
    -------
    numpy.ndarray, shape (...)
        The total Kendall distance.

    Examples
    --------
    The Tennessee election (see :func:`borda`): Nashville > Chattanooga > Knoxville >
    Memphis has distance 207 (Electowiki, "Kemeny-Young method"), the Borda order 223:

    >>> ranks = np.repeat(np.array([[1, 2, 3, 4], [4, 1, 2, 3], [4, 3, 1, 2], [4, 3, 2, 1]]),
    ...                   [42, 26, 15, 17], axis=0)
    >>> int(kemeny_cost(ranks, np.array([4, 1, 2, 3]))), int(kemeny_cost(ranks, borda(ranks)))
    (207, 223)
    """
    preferences = preference_matrix(ranks)
    consensus = np.asarray(consensus, dtype=float)
    before = consensus[..., :, None] < consensus[..., None, :]
    return (before * np.swapaxes(preferences, -1, -2)).sum(axis=(-2, -1))


def _kemeny_local_search(preferences: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Adjacent-swap descent ("local Kemenisation", Dwork et al. 2001) from a start order.

    Swap neighbours a, b (a first) while P[b, a] > P[a, b]; every swap lowers the cost by
    P[b, a] - P[a, b] >= 1, so it ends, and the result is locally Kemeny optimal.
    """
    order = list(start)
    changed = True
    while changed:
        changed = False
        for k in range(len(order) - 1):
            a, b = order[k], order[k + 1]
            if preferences[b, a] > preferences[a, b]:
                order[k], order[k + 1] = b, a
                changed = True
    return np.asarray(order)


def kemeny(ranks: np.ndarray, max_exact: int = KEMENY_MAX_EXACT) -> np.ndarray:
    """Kemeny consensus: the order minimising the total Kendall distance to the raters.

    Kemeny (1959); Kemeny & Snell (1962). With P[a, b] the number of raters putting task a
    before task b, the cost of an order is sum over its pairs (a before b) of P[b, a].

    * n <= ``max_exact`` (default :data:`KEMENY_MAX_EXACT` = 8): exact, by enumerating all
      n! orders in lexicographic order of task indices; among optimal orders the first
      (lexicographically smallest) is returned.
    * n > ``max_exact``: NP-hard in general (Bartholdi, Tovey & Trick 1989), so a
      deterministic heuristic: the Borda order improved by adjacent swaps until no swap
      lowers the cost (locally Kemeny optimal; not guaranteed optimal). Callers should
      flag these results as not exact.

    Parameters
    ----------
    ranks : array_like, shape (..., m, n)
        Rankings; an all-NaN row is an absent rater.
    max_exact : int, default KEMENY_MAX_EXACT
        Largest n solved exactly.

    Returns
    -------
    numpy.ndarray of int64, shape (..., n)
        The consensus ranks, a permutation of 1..n.

    Examples
    --------
    The Tennessee election (see :func:`borda`): the Kemeny ranking is Nashville >
    Chattanooga > Knoxville > Memphis (Electowiki, "Kemeny-Young method"):

    >>> ranks = np.repeat(np.array([[1, 2, 3, 4], [4, 1, 2, 3], [4, 3, 1, 2], [4, 3, 2, 1]]),
    ...                   [42, 26, 15, 17], axis=0)
    >>> kemeny(ranks).tolist()
    [4, 1, 2, 3]
    >>> kemeny(ranks, max_exact=3).tolist()  # the heuristic finds it too
    [4, 1, 2, 3]
    """
    ranks, _ = _validated(ranks)
    n = ranks.shape[-1]
    preferences = preference_matrix(ranks)
    batch_shape = preferences.shape[:-2]
    flat_preferences = preferences.reshape(-1, n, n).astype(float)
    if n > max_exact:
        starts = ranks_to_orders(borda(ranks)).reshape(-1, n)
        orders = np.stack(
            [_kemeny_local_search(p, s) for p, s in zip(flat_preferences, starts, strict=True)]
        )
    else:
        candidates = np.array(list(itertools.permutations(range(n))), dtype=np.int64)
        candidate_ranks = np.empty_like(candidates)
        np.put_along_axis(
            candidate_ranks,
            candidates,
            np.broadcast_to(np.arange(n), candidates.shape),
            axis=1,
        )
        # after[k, a, b] = 1 when order k puts b before a: it pays P[a, b].
        after = (candidate_ranks[:, :, None] > candidate_ranks[:, None, :]).reshape(
            len(candidates), -1
        )
        after = after.astype(float)
        costs_rows = []
        block = max(1, 2_000_000 // len(candidates))
        flat = flat_preferences.reshape(len(flat_preferences), -1)
        for start in range(0, len(flat), block):
            costs = flat[start : start + block] @ after.T
            costs_rows.append(np.argmin(costs, axis=1))  # first minimum: lexicographic
        best = np.concatenate(costs_rows) if costs_rows else np.zeros(0, dtype=np.int64)
        orders = candidates[best]
    result = np.empty(orders.shape, dtype=np.int64)
    np.put_along_axis(result, orders, np.broadcast_to(np.arange(1, n + 1), orders.shape), axis=1)
    return result.reshape(batch_shape + (n,))
