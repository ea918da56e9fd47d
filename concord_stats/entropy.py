"""Shannon entropy of categorical choices."""

from __future__ import annotations

import numpy as np


def shannon_entropy(counts: np.ndarray, base: float = 2.0, axis: int = -1) -> np.ndarray | float:
    """Shannon entropy H = -Σ p_k log p_k of the category counts along ``axis``.

    p_k = n_k / n; empty categories contribute 0 (the limit of p log p as p -> 0), so the
    result is finite wherever n > 0 (Shannon 1948). Base 2 gives bits, base e nats.
    Degenerate input: n = 0 (no valid answer) gives NaN, since no distribution exists.
    Matches scipy.stats.entropy(counts, base=base).
    """
    counts = np.asarray(counts, dtype=float)
    if (counts < 0).any():
        raise ValueError("counts must be non-negative")
    n = counts.sum(axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = counts / n
        terms = np.where(counts > 0, p * np.log(np.where(counts > 0, p, 1.0)), 0.0)
    h = -terms.sum(axis=axis) / np.log(base)
    h = np.where(np.squeeze(n, axis=axis) > 0, h, np.nan)
    # -0.0 from a single category reads badly in a mart
    return np.abs(h) if np.ndim(h) else float(np.abs(h))


def normalised_entropy(counts: np.ndarray, n_categories: int, axis: int = -1) -> np.ndarray:
    """Entropy divided by its maximum log(K) for K possible categories: lies in [0, 1].

    K is the number of possible categories (declared), not the number observed.
    K = 1 gives NaN: a single category has no spread to normalise.
    """
    if n_categories < 1:
        raise ValueError("n_categories must be at least 1")
    h = shannon_entropy(counts, base=np.e, axis=axis)
    if n_categories == 1:
        return np.full_like(np.asarray(h, dtype=float), np.nan)
    return h / np.log(n_categories)
