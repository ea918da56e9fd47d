"""Percentile bootstrap by resampling counts: one helper and one result type for every study.

Every bootstrap in Concord resamples *rows* (items, scenarios, messages, answers) with
replacement, and every statistic it feeds is a function of how often each row is drawn. So a
resample is a vector of counts, one per distinct row: resampling n rows with replacement is
drawing those counts from Multinomial(n, c / n), c the observed multiplicity of each distinct
row (Efron & Tibshirani 1993, ch. 6). :func:`resample_counts` draws them and
:func:`bootstrap` turns a vectorised statistic of counts into an :class:`Interval`:

* category counts (an agreement rate, an entropy): the rows are the categories and c the
  observed counts, O(K) per resample;
* per-unit statistics (a kappa over items, a mean tau over scenarios, a mean paired
  difference over messages): every row is distinct, c = 1, and the counts are the number
  of times each unit is drawn; a statistic that is a weighted mean of per-unit terms is
  then one matrix product ``counts @ terms`` per block of resamples.

``tests/python/test_bootstrap.py`` shows that count resampling matches row resampling in
distribution. The seed fixes the stream: the same seed gives the same intervals, however the
resamples are blocked.
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

#: Largest resamples x rows block drawn at once (memory stays bounded on large inputs).
MAX_CELLS = 20_000_000
#: Units per block and resamples per chunk of :func:`unit_resample_blocks` (fixed: they
#: define its stream, so the same seed gives the same intervals on any machine).
UNIT_BLOCK = 16_384
RESAMPLE_CHUNK = 256


@dataclass(frozen=True)
class Interval:
    """An estimate with its percentile bootstrap interval, for one statistic or an array.

    ``estimate``, ``ci_low``, ``ci_high``, ``boot_mean`` and ``n_undefined`` are floats (ints)
    for a scalar statistic and arrays of the statistic's shape for a vectorised one.
    ``n_undefined`` counts the resamples where the statistic is undefined (NaN, e.g. a kappa
    whose chance agreement is 1); they are left out of the percentiles, and an interval with
    no defined resample is NaN.
    """

    estimate: float | np.ndarray
    ci_low: float | np.ndarray
    ci_high: float | np.ndarray
    boot_mean: float | np.ndarray
    confidence: float
    n_resamples: int
    n_undefined: int | np.ndarray

    def summary(self) -> dict[str, float]:
        """estimate, boot_mean, ci_low, ci_high of a scalar statistic, as mart columns."""
        return {
            "estimate": float(self.estimate),
            "boot_mean": float(self.boot_mean),
            "ci_low": float(self.ci_low),
            "ci_high": float(self.ci_high),
        }


def make_rng(seed: int) -> np.random.Generator:
    """A PCG64 generator: every random procedure in Concord takes a seed.

    Parameters
    ----------
    seed : int
        The seed.

    Returns
    -------
    numpy.random.Generator
        ``numpy.random.default_rng(seed)``.

    Examples
    --------
    >>> make_rng(7).integers(0, 10, size=5).tolist()
    [9, 6, 6, 8, 5]
    >>> make_rng(7).integers(0, 10, size=5).tolist()  # the same seed, the same stream
    [9, 6, 6, 8, 5]
    """
    return np.random.default_rng(int(seed))


def derive_seed(seed: int, *key: object) -> int:
    """An independent, reproducible seed for one cell of a mart (model, run, metric …).

    The key is hashed with CRC-32 (stable across processes, unlike hash()) and mixed with
    the base seed through numpy's SeedSequence, so every cell gets its own stream and the
    same base seed always gives the same marts.

    Parameters
    ----------
    seed : int
        The base seed (the run's).
    *key : object
        What names the cell; each part is hashed through ``str``.

    Returns
    -------
    int
        A seed in 0 .. 2**32 - 1.

    Examples
    --------
    >>> derive_seed(42, "gpt-4o", "agreement_pct")
    1389142400
    >>> derive_seed(42, "gpt-4o", "disagreement_pct")
    3053639997
    """
    words = [zlib.crc32(str(part).encode("utf-8")) for part in key]
    return int(np.random.SeedSequence([int(seed), *words]).generate_state(1)[0])


def percentile_interval(
    replicates: np.ndarray, confidence: float = 0.95, axis: int = -1
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval: the (1-c)/2 and (1+c)/2 quantiles of the bootstrap replicates.

    Linear interpolation between order statistics (numpy's default, as scipy.stats.bootstrap
    uses for method='percentile'). NaN replicates are ignored; all-NaN gives NaN.

    Parameters
    ----------
    replicates : array_like
        The bootstrap replicates.
    confidence : float, default 0.95
        The coverage c, in (0, 1).
    axis : int, default -1
        Axis of the replicates.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The lower and upper bounds, without ``axis``.

    Examples
    --------
    The 5th and 95th percentiles of 0, 1, ..., 100:

    >>> low, high = percentile_interval(np.arange(101.0), confidence=0.9)
    >>> round(float(low), 6), round(float(high), 6)
    (5.0, 95.0)
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    alpha = (1 - confidence) / 2
    reps = np.asarray(replicates, dtype=float)
    if reps.shape[axis] == 0:
        raise ValueError("no bootstrap replicates")
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN slice gives NaN
        low = np.nanquantile(reps, alpha, axis=axis)
        high = np.nanquantile(reps, 1 - alpha, axis=axis)
    return low, high


def bootstrap_indices(rng: np.random.Generator, n: int, n_resamples: int) -> np.ndarray:
    """Row indices of n_resamples resamples of size n drawn with replacement.

    Parameters
    ----------
    rng : numpy.random.Generator
        The stream to draw from.
    n : int
        Rows in the sample (at least 1).
    n_resamples : int
        Resamples to draw.

    Returns
    -------
    numpy.ndarray, shape (n_resamples, n)
        Row indices in 0 .. n-1.

    Examples
    --------
    >>> bootstrap_indices(make_rng(0), n=4, n_resamples=2).tolist()
    [[3, 2, 2, 1], [1, 0, 0, 0]]
    """
    if n < 1:
        raise ValueError("cannot resample an empty sample")
    return rng.integers(0, n, size=(n_resamples, n))


def resample_counts(counts: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """How often each distinct row is drawn in n_resamples resamples of all n rows.

    ``counts`` (shape (U,)) is the multiplicity of each distinct row, n = Σ counts; the
    result (n_resamples, U) is drawn from Multinomial(n, counts / n), each row summing to n.
    When every row is distinct (all counts 1) the draw is n uniform row indices per resample,
    tallied (the same distribution, O(n) instead of n binomial draws).

    Parameters
    ----------
    counts : array_like of int, shape (U,)
        Multiplicity of each distinct row.
    n_resamples : int
        Resamples to draw.
    rng : numpy.random.Generator
        The stream to draw from.

    Returns
    -------
    numpy.ndarray of int, shape (n_resamples, U)
        Draws of each distinct row per resample.

    Examples
    --------
    Category counts (3, 1), resampled three times; every resample has 4 rows:

    >>> resample_counts(np.array([3, 1]), 3, make_rng(0)).tolist()
    [[3, 1], [4, 0], [4, 0]]

    Four distinct units (per-unit data):

    >>> resample_counts(np.ones(4, dtype=int), 2, make_rng(0)).tolist()
    [[0, 1, 2, 1], [3, 1, 0, 0]]
    """
    counts = np.asarray(counts)
    if counts.ndim != 1:
        raise ValueError("counts must be one-dimensional (one count per distinct row)")
    if (counts < 0).any():
        raise ValueError("counts must be non-negative")
    n = int(counts.sum())
    if n == 0:
        raise ValueError("cannot resample an empty sample (all counts are zero)")
    if (counts == 1).all():
        draws = bootstrap_indices(rng, n, n_resamples)
        offsets = (np.arange(n_resamples, dtype=np.int64) * n)[:, None]
        return np.bincount((draws + offsets).ravel(), minlength=n_resamples * n).reshape(
            n_resamples, n
        )
    return rng.multinomial(n, counts / n, size=n_resamples)


def resample_blocks(
    counts: np.ndarray, n_resamples: int, seed: int, max_cells: int = MAX_CELLS
) -> Iterator[np.ndarray]:
    """:func:`resample_counts` in blocks of at most ``max_cells`` counts, from one stream.

    The blocks concatenate to the same counts as one draw of all resamples.

    Parameters
    ----------
    counts : array_like of int, shape (U,)
        Multiplicity of each distinct row.
    n_resamples : int
        Resamples to draw in all (at least 1).
    seed : int
        Seed of the one stream.
    max_cells : int, default MAX_CELLS
        Largest number of counts per block.

    Yields
    ------
    numpy.ndarray of int, shape (R', U)
        The counts of the next R' resamples.

    Examples
    --------
    Five resamples of three units, at most six counts (two resamples) per block:

    >>> blocks = list(resample_blocks(np.ones(3, dtype=int), 5, seed=0, max_cells=6))
    >>> [block.shape for block in blocks]
    [(2, 3), (2, 3), (1, 3)]
    >>> np.concatenate(blocks).tolist()
    [[0, 2, 1], [3, 0, 0], [3, 0, 0], [0, 1, 2], [0, 2, 1]]
    >>> next(resample_blocks(np.ones(3, dtype=int), 5, seed=0)).tolist()  # one block
    [[0, 2, 1], [3, 0, 0], [3, 0, 0], [0, 1, 2], [0, 2, 1]]
    """
    if int(n_resamples) < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples}")
    rng = make_rng(seed)
    rows = max(1, int(max_cells) // max(len(counts), 1))
    for start in range(0, int(n_resamples), rows):
        yield resample_counts(counts, min(rows, int(n_resamples) - start), rng)


def unit_resample_blocks(
    n_units: int, n_resamples: int, seed: int, unit_block: int = UNIT_BLOCK
) -> Iterator[tuple[int, int, int, np.ndarray]]:
    """How often each unit is drawn when n_units units are resampled with replacement,
    produced block of units by block of units: yields ``(lo, hi, r0, counts)``, counts of
    shape (R', hi − lo) for units lo..hi-1 in resamples r0..r0+R'-1.

    For a statistic built from per-unit terms (a kappa over a million items), this lets the
    terms of one block of units be built once and meet every resample, instead of being
    rebuilt for each block of resamples. The draw is exactly the multinomial of
    :func:`resample_counts`: each resample's n draws are split among the unit blocks
    (Multinomial(n, block size / n)), then drawn uniformly within each block. The stream
    depends only on the seed, n_units, n_resamples and ``unit_block``: every block of units
    has its own generator (spawned from the seed), consumed in fixed chunks of resamples.

    Parameters
    ----------
    n_units : int
        Units to resample (at least 1).
    n_resamples : int
        Resamples to draw (at least 1).
    seed : int
        Seed of the stream.
    unit_block : int, default UNIT_BLOCK
        Units per block.

    Yields
    ------
    (int, int, int, numpy.ndarray)
        ``(lo, hi, r0, counts)`` as above.

    Examples
    --------
    Five units in blocks of three, three resamples; each resample draws five units in all:

    >>> for lo, hi, r0, counts in unit_resample_blocks(5, 3, seed=0, unit_block=3):
    ...     print(lo, hi, r0, counts.tolist())
    0 3 0 [[0, 1, 0], [2, 1, 1], [1, 1, 0]]
    3 5 0 [[2, 2], [0, 1], [1, 2]]
    """
    n, n_resamples = int(n_units), int(n_resamples)
    if n < 1:
        raise ValueError("cannot resample an empty sample")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples}")
    starts = np.arange(0, n, int(unit_block))
    sizes = np.diff(np.append(starts, n))
    streams = np.random.SeedSequence(int(seed)).spawn(len(starts) + 1)
    totals = np.random.default_rng(streams[0]).multinomial(n, sizes / n, size=n_resamples)
    for j, (lo, size) in enumerate(zip(starts.tolist(), sizes.tolist(), strict=True)):
        rng = np.random.default_rng(streams[j + 1])
        for r0 in range(0, n_resamples, RESAMPLE_CHUNK):
            drawn = totals[r0 : r0 + RESAMPLE_CHUNK, j]
            rows = np.repeat(np.arange(len(drawn), dtype=np.int64) * size, drawn)
            index = rows + rng.integers(0, size, size=rows.size)
            counts = np.bincount(index, minlength=len(drawn) * size).reshape(len(drawn), size)
            yield lo, lo + size, r0, counts


def bootstrap(
    counts: np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    n_resamples: int,
    confidence: float,
    seed: int,
    max_cells: int = MAX_CELLS,
) -> Interval:
    """Percentile bootstrap of a statistic of row counts (see the module docstring).

    ``counts`` (U,) are the observed multiplicities of the distinct rows (all ones for
    per-unit data). ``statistic`` maps an (R, U) array of resampled counts to an (R, ...)
    array of values (vectorised over resamples); the estimate is the statistic of the
    observed counts. Returns an :class:`Interval` of the statistic's shape (...).

    Parameters
    ----------
    counts : array_like of int, shape (U,)
        Multiplicity of each distinct row.
    statistic : callable
        (R, U) counts to (R, ...) values.
    n_resamples : int
        Bootstrap resamples.
    confidence : float
        Coverage of the percentile interval.
    seed : int
        Seed of the stream.
    max_cells : int, default MAX_CELLS
        Largest number of counts drawn at once.

    Returns
    -------
    Interval
        Estimate, percentile interval, bootstrap mean and undefined resamples.

    Examples
    --------
    The mean of five units:

    >>> mean = weighted_means(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    >>> ci = bootstrap(np.ones(5, dtype=int), mean, n_resamples=1000, confidence=0.95, seed=0)
    >>> ci.estimate, round(ci.ci_low, 3), round(ci.ci_high, 3), ci.n_undefined
    (3.0, 1.8, 4.2, 0)

    The entropy of category counts (6, 3, 1), in bits:

    >>> from concord_stats.entropy import shannon_entropy
    >>> ci = bootstrap(np.array([6, 3, 1]), shannon_entropy, n_resamples=1000, confidence=0.95,
    ...                seed=0)
    >>> round(ci.estimate, 3), round(ci.ci_low, 3), round(ci.ci_high, 3)
    (1.295, 0.469, 1.522)
    """
    counts = np.asarray(counts)
    estimate = np.asarray(statistic(counts[None, :]), dtype=float)[0]
    replicates = np.concatenate(
        [
            np.asarray(statistic(block), dtype=float)
            for block in resample_blocks(counts, n_resamples, seed, max_cells)
        ]
    )
    return interval_of(estimate, replicates, confidence)


def bootstrap_many(
    cells: Sequence[tuple[np.ndarray, Callable[[np.ndarray], np.ndarray], int]],
    *,
    n_resamples: int,
    confidence: float,
    threads: int = 1,
    max_cells: int = MAX_CELLS,
) -> list[Interval]:
    """:func:`bootstrap` of many cells, each ``(counts, statistic, seed)``, on ``threads``
    threads; the intervals in the cells' order.

    Each cell draws from its own seed, so the intervals are the same whatever the thread
    count. numpy's generators release the GIL while they draw (the multinomial of a kappa's
    thousands of patterns is most of a cross-lingual build's bootstrap), so the threads use
    the cores a process pool would, without copying the counts to other processes. Each
    thread draws blocks of up to ``max_cells`` counts (the block size is left as it is: a
    bounded-integer draw of an odd size discards half a word of the stream, so another block
    size could change a per-unit cell's resamples).

    Parameters
    ----------
    cells : sequence of (counts, statistic, seed)
        As :func:`bootstrap` takes them.
    n_resamples : int
        Bootstrap resamples of every cell.
    confidence : float
        Coverage of the percentile intervals.
    threads : int, default 1
        Threads to draw on (at least 1).
    max_cells : int, default MAX_CELLS
        Largest number of counts one thread draws at once.

    Returns
    -------
    list of Interval
        One per cell.

    Examples
    --------
    >>> from concord_stats.entropy import shannon_entropy
    >>> cells = [(np.array([6, 3, 1]), shannon_entropy, seed) for seed in range(4)]
    >>> one = bootstrap_many(cells, n_resamples=500, confidence=0.9, threads=1)
    >>> two = bootstrap_many(cells, n_resamples=500, confidence=0.9, threads=2)
    >>> [a.summary() == b.summary() for a, b in zip(one, two)]
    [True, True, True, True]
    """
    threads = max(1, int(threads))

    def draw(cell: tuple[np.ndarray, Callable[[np.ndarray], np.ndarray], int]) -> Interval:
        counts, statistic, seed = cell
        return bootstrap(
            counts,
            statistic,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            max_cells=max_cells,
        )

    if threads == 1 or len(cells) < 2:
        return [draw(cell) for cell in cells]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(draw, cells))


def interval_of(estimate: np.ndarray, replicates: np.ndarray, confidence: float) -> Interval:
    """The :class:`Interval` of an estimate (shape (...)) and its replicates (R, ...).

    Parameters
    ----------
    estimate : array_like, shape (...)
        The statistic of the observed data.
    replicates : array_like, shape (R, ...)
        Its bootstrap replicates, NaN where undefined.
    confidence : float
        Coverage of the percentile interval.

    Returns
    -------
    Interval
        Floats for a scalar estimate, arrays otherwise.

    Examples
    --------
    The quartiles of the defined replicates 1, 2, 3 bound a 50 % interval:

    >>> ci = interval_of(np.float64(2.0), np.array([1.0, 2.0, 3.0, np.nan]), confidence=0.5)
    >>> ci.summary(), ci.n_undefined
    ({'estimate': 2.0, 'boot_mean': 2.0, 'ci_low': 1.5, 'ci_high': 2.5}, 1)
    """
    estimate = np.asarray(estimate, dtype=float)
    replicates = np.asarray(replicates, dtype=float)
    n_resamples = replicates.shape[0]
    low, high = percentile_interval(replicates, confidence, axis=0)
    undefined = np.isnan(replicates).sum(axis=0)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        boot_mean = np.nanmean(replicates, axis=0)
    scalar = estimate.ndim == 0
    return Interval(
        estimate=float(estimate) if scalar else estimate,
        ci_low=float(low) if scalar else low,
        ci_high=float(high) if scalar else high,
        boot_mean=float(boot_mean) if scalar else boot_mean,
        confidence=float(confidence),
        n_resamples=int(n_resamples),
        n_undefined=int(undefined) if scalar else undefined,
    )


def weighted_means(terms: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """The statistic "mean of per-unit terms" as a function of unit counts.

    ``terms`` is (n, ...) with NaN where a unit's term is undefined; a resample's mean is
    Σ c_i t_i / Σ c_i over the units whose term is defined (NaN when it draws none).

    Parameters
    ----------
    terms : array_like, shape (n, ...)
        One term per unit, NaN where undefined.

    Returns
    -------
    callable
        (R, n) unit counts to (R, ...) means.

    Examples
    --------
    >>> mean = weighted_means(np.array([1.0, np.nan, 3.0]))
    >>> mean(np.array([[1, 1, 1], [2, 5, 0], [0, 1, 0]])).tolist()
    [2.0, 1.0, nan]
    """
    terms = np.asarray(terms, dtype=float)
    flat = terms.reshape(terms.shape[0], -1)
    defined = ~np.isnan(flat)
    filled = np.where(defined, flat, 0.0)
    mask = defined.astype(float)

    def statistic(counts: np.ndarray) -> np.ndarray:
        c = np.asarray(counts, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (c @ filled) / (c @ mask)
        return means.reshape((c.shape[0], *terms.shape[1:]))

    return statistic
