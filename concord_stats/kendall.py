"""Kendall's tau-b and Kendall's W for rankings of tasks within scenarios.

Conventions used by every function here:

* An *order* lists task codes by position: ``orders[..., p]`` is the code (0 .. n-1) of the
  task put in position ``p + 1``. A *rank vector* lists positions by task:
  ``ranks[..., t]`` is the position (1 .. n) of task ``t``. Kendall's tau and W are
  defined on rank vectors; tau between two orders is a different (wrong) number, so
  orders are converted with :func:`orders_to_ranks` first.
* Rank vectors are float arrays. ``NaN`` marks a task absent from a ranking: a whole
  row of ``NaN`` is a rater who did not rank the scenario, trailing ``NaN`` columns pad
  scenarios with fewer tasks than the widest one. Pairs of tasks involving a ``NaN`` are
  ignored.

References: Kendall, M. G. (1945) "The treatment of ties in ranking problems",
Biometrika 33(3), 239-251 (tau-b); Kendall & Babington Smith (1939) "The problem of m
rankings", Ann. Math. Statist. 10(3), 275-287 and Siegel & Castellan (1988)
"Nonparametric statistics for the behavioral sciences", 2nd ed., sec. 9.4 (W with ties).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from concord_stats.bootstrap import Interval, bootstrap, weighted_means

__all__ = [
    "orders_to_ranks",
    "rank_array",
    "pair_signs",
    "normalised_pair_signs",
    "tau_b",
    "pairwise_tau_b",
    "pairwise_mean_tau_b",
    "pairwise_tau_b_interval",
    "kendall_w",
]

# The one message the ranking models raise when nothing survives validation (a clear error,
# not empty marts that look like "no disagreement").
NO_VALID_RANKING = (
    "no valid ranking to analyse: int_ranking_orders_validated is empty, so every ranking in "
    "seed ranking_rankings was quarantined (see int_ranking_rankings_quarantined) or the seed "
    "has no rows"
)

# Scenarios per chunk in pairwise_mean_tau_b: keeps the sign array of 50 raters x 5 tasks
# near 40 MB whatever the number of scenarios (memory is flat, time linear).
DEFAULT_CHUNK_SCENARIOS = 10_000


def orders_to_ranks(orders: np.ndarray) -> np.ndarray:
    """Convert orders (task code per position) to ranks (position per task).

    ``ranks[..., orders[..., p]] = p + 1``. Task codes are 0-based; positions 1-based.
    Example from the ordered-task document: the order (3, 2, 4, 1, 5) with 1-based task
    ids, i.e. codes (2, 1, 3, 0, 4), has ranks (4, 2, 1, 3, 5).

    Raises ValueError when a slice along the last axis is not a permutation of
    0 .. n-1 (a repeated task, a gap or an out-of-range code): its ranks are undefined.

    Parameters
    ----------
    orders : array_like of int, shape (..., n)
        Task code (0-based) per position.

    Returns
    -------
    numpy.ndarray of int64, shape (..., n)
        Position (1-based) per task.

    Examples
    --------
    The ordered-task document's example, order (3, 2, 4, 1, 5) of 1-based task ids:

    >>> orders_to_ranks(np.array([3, 2, 4, 1, 5]) - 1).tolist()
    [4, 2, 1, 3, 5]
    """
    orders = np.asarray(orders)
    if not np.issubdtype(orders.dtype, np.integer):
        raise ValueError(f"orders must be integer task codes, got dtype {orders.dtype}")
    n = orders.shape[-1]
    expected = np.arange(n)
    bad = ~(np.sort(orders, axis=-1) == expected).all(axis=-1)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"order at index {where} is not a permutation of task codes 0..{n - 1}: "
            f"{orders[where].tolist()}"
        )
    ranks = np.empty(orders.shape, dtype=np.int64)
    np.put_along_axis(ranks, orders, np.broadcast_to(expected + 1, orders.shape), axis=-1)
    return ranks


def rank_array(
    rater_index: np.ndarray,
    scenario_index: np.ndarray,
    task_index: np.ndarray,
    position: np.ndarray,
    shape: tuple[int, int, int],
) -> np.ndarray:
    """Build the (raters, scenarios, tasks) rank array from long-form orders.

    Each input row says "rater ``i`` put task ``t`` of scenario ``q`` in position ``p``";
    in rank form that is ``R[i, q, t] = p`` -- the long-form equivalent of
    :func:`orders_to_ranks`. Cells never written stay NaN (a rater who did not rank a
    scenario, or padding of a scenario with fewer tasks).

    Raises ValueError when two rows write the same cell (a repeated task) or when a
    ranking's positions are not exactly 1 .. (number of its tasks) (a repeated position
    or a gap): such a ranking has no rank vector.

    Parameters
    ----------
    rater_index, scenario_index, task_index : array_like of int
        ``i``, ``q`` and ``t`` of each row.
    position : array_like
        ``p`` (1-based) of each row.
    shape : (int, int, int)
        (raters, scenarios, tasks) of the result.

    Returns
    -------
    numpy.ndarray of float, shape ``shape``
        The ranks, NaN where no row wrote.

    Examples
    --------
    Two raters rank scenario 0's three tasks; rater 0 alone ranks scenario 1's two tasks:

    >>> ranks = rank_array(
    ...     rater_index=np.array([0, 0, 0, 1, 1, 1, 0, 0]),
    ...     scenario_index=np.array([0, 0, 0, 0, 0, 0, 1, 1]),
    ...     task_index=np.array([0, 1, 2, 0, 1, 2, 0, 1]),
    ...     position=np.array([2, 1, 3, 1, 2, 3, 2, 1]),
    ...     shape=(2, 2, 3),
    ... )
    >>> ranks.tolist()
    [[[2.0, 1.0, 3.0], [2.0, 1.0, nan]], [[1.0, 2.0, 3.0], [nan, nan, nan]]]
    """
    rater_index, scenario_index, task_index, position = (
        np.asarray(a) for a in (rater_index, scenario_index, task_index, position)
    )
    ranks = np.full(shape, np.nan)
    counts = np.zeros(shape, dtype=np.int64)
    np.add.at(counts, (rater_index, scenario_index, task_index), 1)
    if (counts > 1).any():
        where = tuple(int(i) for i in np.argwhere(counts > 1)[0])
        raise ValueError(f"task ranked twice by (rater, scenario, task) index {where}")
    ranks[rater_index, scenario_index, task_index] = position
    present = ~np.isnan(ranks)
    n_tasks = present.sum(axis=-1)
    # Positions 1..k are a permutation iff they are distinct, >= 1 and <= k.
    sorted_ranks = np.sort(np.where(present, ranks, np.inf), axis=-1)
    expected = np.arange(1, shape[-1] + 1)
    ok = (sorted_ranks == expected) | (expected > n_tasks[..., None])
    bad = ~ok.all(axis=-1)
    if bad.any():
        i, q = (int(v) for v in np.argwhere(bad)[0])
        got = np.sort(ranks[i, q][present[i, q]]).tolist()
        raise ValueError(
            f"positions of (rater, scenario) index ({i}, {q}) are not 1..{n_tasks[i, q]}: {got}"
        )
    return ranks


@dataclass(frozen=True)
class RankCube:
    """Long-form orders as a rank array with its labels: ``ranks[i, q, t]`` is the position
    rater ``raters[i]`` gave task ``t`` of scenario ``scenarios[q]``; ``rater_index`` and
    ``scenario_index`` give each input row's ``i`` and ``q``."""

    raters: np.ndarray
    scenarios: np.ndarray
    rater_index: np.ndarray
    scenario_index: np.ndarray
    ranks: np.ndarray


def rank_cube(
    rater_id: np.ndarray,
    scenario_id: np.ndarray,
    task_index: np.ndarray,
    position: np.ndarray,
    n_tasks: np.ndarray,
) -> RankCube:
    """:func:`rank_array` from labelled rows (one per rater, scenario and position; tasks as
    their 0-based index within the scenario, ``n_tasks`` the scenario's task count). Raters
    and scenarios are indexed in sorted label order. No row at all raises ValueError
    (NO_VALID_RANKING): there is nothing to correlate.

    Parameters
    ----------
    rater_id, scenario_id : array_like
        Labels of each row.
    task_index : array_like of int
        0-based task index within the scenario.
    position : array_like
        1-based position of the task.
    n_tasks : array_like of int
        Task count of each row's scenario.

    Returns
    -------
    RankCube
        The rank array with its sorted labels and each row's indices.

    Examples
    --------
    >>> cube = rank_cube(
    ...     rater_id=np.array(["bob", "bob", "ann", "ann"]),
    ...     scenario_id=np.array(["s1", "s1", "s1", "s1"]),
    ...     task_index=np.array([0, 1, 0, 1]),
    ...     position=np.array([1, 2, 2, 1]),
    ...     n_tasks=np.array([2, 2, 2, 2]),
    ... )
    >>> cube.raters.tolist(), cube.rater_index.tolist(), cube.ranks.tolist()
    (['ann', 'bob'], [1, 1, 0, 0], [[[2.0, 1.0]], [[1.0, 2.0]]])
    """
    if len(rater_id) == 0:
        raise ValueError(NO_VALID_RANKING)
    raters, rater_index = np.unique(np.asarray(rater_id), return_inverse=True)
    scenarios, scenario_index = np.unique(np.asarray(scenario_id), return_inverse=True)
    shape = (len(raters), len(scenarios), int(np.max(n_tasks)))
    ranks = rank_array(rater_index, scenario_index, task_index, position, shape)
    return RankCube(raters, scenarios, rater_index, scenario_index, ranks)


def pair_signs(ranks: np.ndarray) -> np.ndarray:
    """Signs of rank differences over the n(n-1)/2 task pairs.

    ``s[..., k] = sign(r[b] - r[a])`` for the k-th pair a < b (``numpy.triu_indices``
    order); 0 for a tied pair or a pair involving a NaN (absent) task.

    Parameters
    ----------
    ranks : array_like, shape (..., n)
        Rank vectors, NaN for an absent task.

    Returns
    -------
    numpy.ndarray of float, shape (..., n (n - 1) / 2)
        -1, 0 or 1 per task pair.

    Examples
    --------
    Pairs (0, 1), (0, 2), (1, 2):

    >>> pair_signs(np.array([1, 3, 2])).tolist()
    [1.0, 1.0, -1.0]
    >>> pair_signs(np.array([[1, 1, 2], [1, np.nan, 2]])).tolist()
    [[0.0, 1.0, 1.0], [0.0, 1.0, 0.0]]
    """
    ranks = np.asarray(ranks, dtype=float)
    a, b = np.triu_indices(ranks.shape[-1], k=1)
    signs = np.sign(ranks[..., b] - ranks[..., a])
    return np.nan_to_num(signs, nan=0.0)


def normalised_pair_signs(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pair signs divided by the square root of their number of non-zeros.

    With ``u = s / sqrt(nnz(s))`` Kendall's tau-b of two rankings over the same tasks is the
    dot product ``u_x . u_y`` (Kendall 1945: tau_b = sum s_x s_y / sqrt(n_x n_y), where
    n_x = n0 - n1 is the number of pairs not tied in x). Returns ``(u, defined)``;
    ``defined`` is False, and ``u`` zero, where a ranking has no untied pair.

    Parameters
    ----------
    ranks : array_like, shape (..., n)
        As in :func:`pair_signs`.

    Returns
    -------
    u : numpy.ndarray, shape (..., n (n - 1) / 2)
        The normalised pair signs.
    defined : numpy.ndarray of bool, shape (...)
        Whether the ranking has an untied pair.

    Examples
    --------
    >>> u, defined = normalised_pair_signs(np.array([[1, 3, 2], [3, 2, 1], [2, 2, 2]]))
    >>> np.round(u, 3).tolist(), defined.tolist()
    ([[0.577, 0.577, -0.577], [-0.577, -0.577, -0.577], [0.0, 0.0, 0.0]], [True, True, False])
    >>> round(float(u[0] @ u[1]), 4)  # tau_b([1, 3, 2], [3, 2, 1])
    -0.3333
    """
    signs = pair_signs(ranks)
    nonzero = np.count_nonzero(signs, axis=-1)
    defined = nonzero > 0
    scale = np.where(defined, 1.0 / np.sqrt(np.maximum(nonzero, 1)), 0.0)
    return signs * scale[..., None], defined


def tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b between rank vectors along the last axis (broadcast over the rest).

    tau_b = (n_c - n_d) / sqrt((n0 - n1)(n0 - n2)), with n_c / n_d the concordant /
    discordant pairs, n1 / n2 the pairs tied in x / y (Kendall 1945). Equal to
    ``scipy.stats.kendalltau(x, y, variant='b')``.

    Pairs of tasks where either value is NaN are left out of every count, so tau-b is
    computed on the tasks present in both rankings.

    Degenerate input: NaN when either ranking has no untied pair among the tasks present
    in both (all tied, fewer than two tasks, or missing): tau-b is 0/0 there, as in scipy.

    Parameters
    ----------
    x, y : array_like, shape (..., n)
        Rank vectors (any scores), NaN for an absent task; broadcast together.

    Returns
    -------
    numpy.ndarray, shape (...)
        Tau-b in [-1, 1], NaN where undefined.

    Examples
    --------
    scipy.stats.kendalltau's documented example (statistic -0.47140452079103173):

    >>> round(float(tau_b(np.array([12, 2, 1, 12, 2]), np.array([1, 4, 7, 1, 0]))), 6)
    -0.471405
    >>> tau_b(np.array([1, 2, 3]), np.array([[1, 2, 3], [3, 2, 1], [2, 2, 2]])).tolist()
    [1.0, -1.0, nan]
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    a, b = np.triu_indices(np.broadcast_shapes(x.shape, y.shape)[-1], k=1)
    dx = x[..., b] - x[..., a]
    dy = y[..., b] - y[..., a]
    both = ~(np.isnan(dx) | np.isnan(dy))
    sx = np.where(both, np.sign(np.nan_to_num(dx)), 0.0)
    sy = np.where(both, np.sign(np.nan_to_num(dy)), 0.0)
    numerator = (sx * sy).sum(axis=-1)
    denominator = np.sqrt(np.count_nonzero(sx, axis=-1) * np.count_nonzero(sy, axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = numerator / denominator
    return np.where(denominator > 0, np.clip(tau, -1.0, 1.0), np.nan)


def _check_same_tasks(ranks: np.ndarray) -> None:
    """Raise unless every rater who ranked a scenario ranked the same tasks."""
    present = ~np.isnan(ranks)
    rater_present = present.any(axis=-1)
    scenario_tasks = present.any(axis=0)
    mismatch = rater_present[..., None] & (present != scenario_tasks[None])
    if mismatch.any():
        i, q, t = (int(v) for v in np.argwhere(mismatch)[0])
        raise ValueError(
            f"rater index {i} ranked a different task set for scenario index {q} "
            f"(task index {t}); pairwise tau-b needs every ranking of a scenario over the "
            "same tasks"
        )


def pairwise_tau_b(ranks: np.ndarray) -> np.ndarray:
    """Tau-b of every pair of raters in every scenario.

    ``ranks`` has shape (N raters, Q scenarios, n tasks) and returns (N, N, Q):
    ``taus[i, j, q] = tau_b(ranks[i, q], ranks[j, q])``, NaN where either rater did not
    rank scenario q or ranked all its tasks tied. Memory is N * N * Q floats: use
    :func:`pairwise_mean_tau_b` for large Q.

    Raises ValueError when two raters ranked different task sets in the same scenario.

    Parameters
    ----------
    ranks : array_like, shape (N, Q, n)
        Rank vectors per rater and scenario, NaN where absent.

    Returns
    -------
    numpy.ndarray, shape (N, N, Q)
        Tau-b of each pair of raters in each scenario.

    Examples
    --------
    Three raters, two scenarios; rater 2 did not rank scenario 1:

    >>> ranks = np.array([[[1, 2, 3], [1, 2, 3]],
    ...                   [[1, 3, 2], [3, 2, 1]],
    ...                   [[3, 2, 1], [np.nan, np.nan, np.nan]]])
    >>> np.round(pairwise_tau_b(ranks)[0], 3).tolist()  # rater 0 against 0, 1, 2
    [[1.0, 1.0], [0.333, -1.0], [-1.0, nan]]
    """
    ranks = np.asarray(ranks, dtype=float)
    _check_same_tasks(ranks)
    signs = pair_signs(ranks)
    nonzero = np.count_nonzero(signs, axis=-1).astype(float)
    # Integer-valued numerator and sqrt(n_x n_y): tau(x, x) is exactly 1.
    numerator = np.einsum("iqp,jqp->ijq", signs, signs)
    denominator = np.sqrt(nonzero[:, None, :] * nonzero[None, :, :])
    with np.errstate(invalid="ignore", divide="ignore"):
        taus = numerator / denominator
    return np.where(denominator > 0, np.clip(taus, -1.0, 1.0), np.nan)


def pairwise_mean_tau_b(
    ranks: np.ndarray, chunk_scenarios: int = DEFAULT_CHUNK_SCENARIOS
) -> tuple[np.ndarray, np.ndarray]:
    """Mean tau-b over shared scenarios for every pair of raters, by matrix products.

    K_ij = (1 / Q_ij) sum_q tau_b(R_iq, R_jq) over the Q_ij scenarios where both raters'
    tau-b is defined (the ordered-task document's K matrix, N x N). With the normalised
    pair signs u (see :func:`normalised_pair_signs`) flattened to one row per rater per
    chunk of scenarios, sum_q tau_b = U U^T and Q_ij = D D^T for the 0/1 matrix D of
    defined rankings; chunks keep memory flat and time linear in Q. When all defined
    rankings of a chunk have the same number v of untied pairs (strict rankings of equally
    many tasks) the integer S S^T of raw signs is accumulated instead and divided by v at
    the end, so the diagonal is exactly 1.

    ``ranks``: (N, Q, n). Returns ``(mean_tau_b, n_scenarios)``, both (N, N); the mean is
    NaN where two raters share no scenario. Raises ValueError when two raters ranked
    different task sets in the same scenario.

    Parameters
    ----------
    ranks : array_like, shape (N, Q, n)
        Rank vectors per rater and scenario, NaN where absent.
    chunk_scenarios : int, default DEFAULT_CHUNK_SCENARIOS
        Scenarios per chunk.

    Returns
    -------
    mean_tau_b : numpy.ndarray, shape (N, N)
        Mean tau-b over shared scenarios.
    n_scenarios : numpy.ndarray of int64, shape (N, N)
        Scenarios where both raters' tau-b is defined.

    Examples
    --------
    The raters of :func:`pairwise_tau_b`'s example (mean of 1/3 and -1 for raters 0, 1):

    >>> ranks = np.array([[[1, 2, 3], [1, 2, 3]],
    ...                   [[1, 3, 2], [3, 2, 1]],
    ...                   [[3, 2, 1], [np.nan, np.nan, np.nan]]])
    >>> mean, shared = pairwise_mean_tau_b(ranks)
    >>> np.round(mean, 3).tolist(), shared.tolist()
    ([[1.0, -0.333, -1.0], [-0.333, 1.0, -0.333], [-1.0, -0.333, 1.0]],
     [[2, 2, 1], [2, 2, 1], [1, 1, 1]])
    """
    ranks = np.asarray(ranks, dtype=float)
    if chunk_scenarios < 1:
        raise ValueError("chunk_scenarios must be at least 1")
    n_raters, n_scenarios = ranks.shape[:2]
    total = np.zeros((n_raters, n_raters))
    count = np.zeros((n_raters, n_raters))
    # Exact path: when every defined ranking of a chunk has the same number v of untied
    # pairs (strict rankings of equally many tasks, the usual case), sum_q tau_b is the
    # integer S S^T divided by v; integer sums are kept per v and divided once at the end,
    # so tau(x, x) is exactly 1 and means carry no accumulated rounding.
    integer_sums: dict[int, np.ndarray] = {}
    for start in range(0, n_scenarios, chunk_scenarios):
        chunk = ranks[:, start : start + chunk_scenarios]
        _check_same_tasks(chunk)
        signs = pair_signs(chunk)
        nonzero = np.count_nonzero(signs, axis=-1)
        defined = nonzero > 0
        mask = defined.astype(float)
        count += mask @ mask.T
        sizes = np.unique(nonzero[defined])
        if len(sizes) == 1:
            flat = signs.reshape(n_raters, -1)
            size = int(sizes[0])
            integer_sums[size] = integer_sums.get(size, 0.0) + flat @ flat.T
        elif len(sizes) > 1:
            scale = np.where(defined, 1.0 / np.sqrt(np.maximum(nonzero, 1)), 0.0)
            flat = (signs * scale[..., None]).reshape(n_raters, -1)
            total += flat @ flat.T
    for size, sums in integer_sums.items():
        total += sums / size
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.clip(total / count, -1.0, 1.0)
    return np.where(count > 0, mean, np.nan), count.astype(np.int64)


def pairwise_tau_b_interval(
    taus: np.ndarray,
    n_resamples: int,
    confidence: float,
    seed: int,
    max_cells: int = 5_000_000,
) -> Interval:
    """Percentile bootstrap interval of every pair's mean tau-b, resampling scenarios.

    Each replicate resamples the Q scenarios with replacement (Efron & Tibshirani 1993,
    ch. 13), one draw shared by all pairs, as when the whole matrix K is recomputed on a
    resampled set of scenarios. A pair's replicate mean is taken over the resampled
    scenarios where its tau-b is defined:

        mean_b = sum_q c_bq tau_q d_q / sum_q c_bq d_q,

    with c_bq the number of times scenario q is drawn in replicate b and d_q = 1 where
    tau_q is defined; for all pairs at once these are two matrix products C @ T. A
    replicate that draws none of a pair's scenarios is NaN and left out of the percentile
    interval. When a pair shares all Q scenarios this is plain resampling of its Q
    per-scenario taus. Cost: O(n_resamples x Q x N^2) flops, replicates drawn in blocks of
    at most ``max_cells`` counts (:func:`concord_stats.bootstrap.bootstrap`).

    ``taus``: (N, N, Q) from :func:`pairwise_tau_b`. Returns an
    :class:`~concord_stats.bootstrap.Interval` whose fields are (N, N) and symmetric
    (estimate: the mean tau-b over shared scenarios), NaN for a pair with no shared
    scenario. One generator seeded with ``seed`` draws the replicates in order: the same
    seed gives the same intervals.

    Parameters
    ----------
    taus : array_like, shape (N, N, Q)
        Per-scenario tau-b of every pair, NaN where undefined.
    n_resamples, confidence, seed
        As in :func:`concord_stats.bootstrap.bootstrap` (at least one resample).
    max_cells : int, default 5_000_000
        Largest number of counts drawn at once.

    Returns
    -------
    Interval
        Fields of shape (N, N).

    Examples
    --------
    Two raters over four scenarios, per-scenario tau-b 1, 1/3, 1/3 and -1:

    >>> ranks = np.array([[[1, 2, 3], [1, 2, 3], [1, 2, 3], [1, 2, 3]],
    ...                   [[1, 2, 3], [2, 1, 3], [1, 3, 2], [3, 2, 1]]])
    >>> ci = pairwise_tau_b_interval(pairwise_tau_b(ranks), 1000, confidence=0.95, seed=0)
    >>> [round(float(field[0, 1]), 3) for field in (ci.estimate, ci.ci_low, ci.ci_high)]
    [0.167, -0.667, 0.833]
    """
    taus = np.asarray(taus, dtype=float)
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    n_raters, _, n_scenarios = taus.shape
    full = np.full((n_raters, n_raters), np.nan)
    estimate, low, high = full.copy(), full.copy(), full.copy()
    boot_mean, undefined = full.copy(), np.zeros((n_raters, n_raters), dtype=np.int64)
    rows, cols = np.triu_indices(n_raters)
    values = taus[rows, cols].T  # (Q, pairs i <= j)
    shared = (~np.isnan(values)).any(axis=0)
    if shared.any():
        pairs = bootstrap(
            np.ones(n_scenarios, dtype=np.int64),
            weighted_means(values[:, shared]),
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            max_cells=max_cells,
        )
        i, j = rows[shared], cols[shared]
        for target, value in (
            (estimate, pairs.estimate),
            (low, pairs.ci_low),
            (high, pairs.ci_high),
            (boot_mean, pairs.boot_mean),
            (undefined, pairs.n_undefined),
        ):
            target[i, j] = target[j, i] = value
    return Interval(estimate, low, high, boot_mean, float(confidence), int(n_resamples), undefined)


def kendall_w(ranks: np.ndarray) -> np.ndarray:
    """Kendall's coefficient of concordance W with the correction for ties.

    ``ranks`` has shape (..., m, n): m raters (rows) ranking n objects (columns); values are
    re-ranked within each row (mid-ranks for ties), so any scores can be given. Then

        W = 12 S / (m^2 (n^3 - n) - m sum_i T_i),
        S = sum_t (R_t - m (n + 1) / 2)^2,  R_t = sum_i r_it,  T_i = sum_g (t_g^3 - t_g)

    over the tie groups g of rater i (Kendall & Babington Smith 1939; Siegel & Castellan
    1988, eq. 9.16). Equivalently W = chi2_F / (m (n - 1)) for Friedman's tie-corrected
    statistic, and without ties mean pairwise Spearman rho = (m W - 1) / (m - 1).

    A row that is all NaN is a rater who did not rank the objects and is left out (m counts
    the other rows). Degenerate input: NaN when fewer than two raters remain, fewer than
    two objects, or every rater ties every object (the denominator is 0). A row with some
    but not all values NaN raises ValueError (an incomplete ranking).

    Parameters
    ----------
    ranks : array_like, shape (..., m, n)
        Scores or ranks of n objects by m raters; an all-NaN row is an absent rater.

    Returns
    -------
    numpy.ndarray, shape (...)
        W in [0, 1], NaN where undefined.

    Examples
    --------
    ProofWiki's "Kendall's Coefficient of Concordance/Examples/Arbitrary Example 1": four
    judges rank three competitors, W = 1/16:

    >>> float(kendall_w(np.array([[1, 3, 2], [1, 2, 3], [2, 3, 1], [3, 1, 2]])))
    0.0625

    With ties (mid-ranks); equals scipy.stats.friedmanchisquare's statistic / (m (n - 1)):

    >>> round(float(kendall_w(np.array([[1, 2, 2, 4], [2, 1, 3, 4], [1, 3, 2, 4]]))), 4)
    0.7701
    """
    ranks = np.asarray(ranks, dtype=float)
    if ranks.ndim < 2:
        raise ValueError("kendall_w needs at least a (raters, objects) array")
    missing = np.isnan(ranks)
    row_missing = missing.all(axis=-1)
    if (missing.any(axis=-1) & ~row_missing).any():
        where = tuple(int(i) for i in np.argwhere(missing.any(axis=-1) & ~row_missing)[0])
        raise ValueError(f"rater row {where} ranks some objects but not all")
    n = ranks.shape[-1]
    filled = np.where(row_missing[..., None], 0.0, ranks)
    # Mid-ranks: rank = (#smaller) + (#equal + 1) / 2, done by comparison to stay in numpy.
    smaller = (filled[..., None, :] < filled[..., :, None]).sum(axis=-1)
    equal = (filled[..., None, :] == filled[..., :, None]).sum(axis=-1)
    midranks = smaller + (equal + 1) / 2.0
    present = ~row_missing
    m = present.sum(axis=-1)
    column_sums = np.where(present[..., None], midranks, 0.0).sum(axis=-2)
    s = ((column_sums - m[..., None] * (n + 1) / 2.0) ** 2).sum(axis=-1)
    # Each member of a tie group of size t has equal == t: sum over members of (t^2 - 1)
    # is t^3 - t per group.
    ties = np.where(present[..., None], equal**2 - 1.0, 0.0).sum(axis=(-2, -1))
    denominator = m**2 * (n**3 - n) - m * ties
    with np.errstate(invalid="ignore", divide="ignore"):
        w = 12.0 * s / denominator
    defined = (m >= 2) & (n >= 2) & (denominator > 0)
    return np.where(defined, np.clip(w, 0.0, 1.0), np.nan)
