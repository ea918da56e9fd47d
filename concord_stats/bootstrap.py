"""Percentile bootstrap, by resampling rows or by drawing resampled counts directly.

When a statistic depends only on category counts (an agreement rate, an entropy), resampling
n rows with replacement is the same as drawing the counts from Multinomial(n, p̂) with p̂ the
observed shares (Efron & Tibshirani 1993, ch. 6). Drawing counts costs O(K) per resample
instead of O(n), and :func:`bootstrap_counts` does exactly that; ``tests/python/test_bootstrap``
shows that it matches row resampling in distribution.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def make_rng(seed: int) -> np.random.Generator:
    """A PCG64 generator: every random procedure in Concord takes a seed."""
    return np.random.default_rng(int(seed))


def percentile_interval(
    replicates: np.ndarray, confidence: float = 0.95, axis: int = -1
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval: the (1-c)/2 and (1+c)/2 quantiles of the bootstrap replicates.

    Linear interpolation between order statistics (numpy's default, as scipy.stats.bootstrap
    uses for method='percentile'). NaN replicates are ignored; all-NaN gives NaN.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    alpha = (1 - confidence) / 2
    reps = np.asarray(replicates, dtype=float)
    if reps.shape[axis] == 0:
        raise ValueError("no bootstrap replicates")
    with np.errstate(all="ignore"):
        low = np.nanquantile(reps, alpha, axis=axis)
        high = np.nanquantile(reps, 1 - alpha, axis=axis)
    return low, high


def bootstrap_indices(rng: np.random.Generator, n: int, n_resamples: int) -> np.ndarray:
    """Row indices of n_resamples resamples of size n drawn with replacement."""
    if n < 1:
        raise ValueError("cannot resample an empty sample")
    return rng.integers(0, n, size=(n_resamples, n))


def resample_counts(counts: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Counts of n_resamples row-resamples, drawn as Multinomial(n, counts / n).

    ``counts`` has shape (K,); the result has shape (n_resamples, K) and each row sums to n.
    """
    counts = np.asarray(counts, dtype=np.int64)
    if counts.ndim != 1:
        raise ValueError("counts must be one-dimensional (one count per category)")
    if (counts < 0).any():
        raise ValueError("counts must be non-negative")
    n = int(counts.sum())
    if n == 0:
        raise ValueError("cannot resample an empty sample (all counts are zero)")
    return rng.multinomial(n, counts / n, size=n_resamples)


def bootstrap_counts(
    counts: np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    n_resamples: int,
    confidence: float,
    seed: int,
) -> dict[str, float]:
    """Percentile bootstrap of a statistic of category counts.

    ``statistic`` maps an (R, K) array of resampled counts to R values (vectorised).
    Returns estimate (on the observed counts), boot_mean, ci_low, ci_high.
    """
    counts = np.asarray(counts, dtype=np.int64)
    rng = make_rng(seed)
    reps = np.asarray(statistic(resample_counts(counts, n_resamples, rng)), dtype=float)
    low, high = percentile_interval(reps, confidence)
    estimate = float(np.asarray(statistic(counts[None, :]), dtype=float)[0])
    return {
        "estimate": estimate,
        "boot_mean": float(np.nanmean(reps)),
        "ci_low": float(low),
        "ci_high": float(high),
    }


def bootstrap_rows(
    values: np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    n_resamples: int,
    confidence: float,
    seed: int,
) -> dict[str, float]:
    """Percentile bootstrap by resampling rows of ``values`` (axis 0).

    ``statistic`` maps an (R, n, ...) array of resamples to R values. Used where the
    statistic is not a function of counts alone, and as the reference for bootstrap_counts.
    """
    values = np.asarray(values)
    rng = make_rng(seed)
    idx = bootstrap_indices(rng, values.shape[0], n_resamples)
    reps = np.asarray(statistic(values[idx]), dtype=float)
    low, high = percentile_interval(reps, confidence)
    estimate = float(np.asarray(statistic(values[None, ...]), dtype=float)[0])
    return {
        "estimate": estimate,
        "boot_mean": float(np.nanmean(reps)),
        "ci_low": float(low),
        "ci_high": float(high),
    }


def derive_seed(seed: int, *key: object) -> int:
    """An independent, reproducible seed for one cell of a mart (model, run, metric …).

    The key is hashed with CRC-32 (stable across processes, unlike hash()) and mixed with
    the base seed through numpy's SeedSequence, so every cell gets its own stream and the
    same base seed always gives the same marts.
    """
    import zlib

    words = [zlib.crc32(str(part).encode("utf-8")) for part in key]
    return int(np.random.SeedSequence([int(seed), *words]).generate_state(1)[0])
