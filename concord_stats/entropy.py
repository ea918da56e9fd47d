"""Shannon entropy of categorical choices."""

from __future__ import annotations

import numpy as np


def shannon_entropy(counts: np.ndarray, base: float = 2.0, axis: int = -1) -> np.ndarray | float:
    """Shannon entropy H = -Σ p_k log p_k of the category counts along ``axis``.

    p_k = n_k / n; empty categories contribute 0 (the limit of p log p as p -> 0), so the
    result is finite wherever n > 0 (Shannon 1948). Base 2 gives bits, base e nats.
    Degenerate input: n = 0 (no valid answer) gives NaN, since no distribution exists.
    Matches scipy.stats.entropy(counts, base=base).

    Parameters
    ----------
    counts : array_like
        Non-negative category counts.
    base : float, default 2.0
        Base of the logarithm.
    axis : int, default -1
        Axis of the categories.

    Returns
    -------
    float or numpy.ndarray
        The entropy, a float for a 1-D input, else an array without ``axis``.

    Examples
    --------
    Two equally likely categories carry 1 bit, four carry 2 bits (Shannon 1948):

    >>> shannon_entropy([1, 1]), shannon_entropy([1, 1, 1, 1])
    (1.0, 2.0)
    >>> round(shannon_entropy([1, 1], base=np.e), 4)  # ln 2 nats
    0.6931
    >>> shannon_entropy(np.array([[1, 1], [4, 0], [0, 0]])).tolist()
    [1.0, 0.0, nan]
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

    Parameters
    ----------
    counts : array_like
        Non-negative category counts.
    n_categories : int
        K, the number of declared categories.
    axis : int, default -1
        Axis of the categories.

    Returns
    -------
    float or numpy.ndarray
        The normalised entropy in [0, 1].

    Examples
    --------
    Two of four declared categories used equally: 1 bit of a possible 2.

    >>> float(normalised_entropy([1, 1, 0, 0], n_categories=4))
    0.5
    >>> normalised_entropy(np.array([[1, 1, 0, 0], [2, 2, 2, 2]]), 4).tolist()
    [0.5, 1.0]
    >>> float(normalised_entropy([3], n_categories=1))
    nan
    """
    if n_categories < 1:
        raise ValueError("n_categories must be at least 1")
    h = shannon_entropy(counts, base=np.e, axis=axis)
    if n_categories == 1:
        return np.full_like(np.asarray(h, dtype=float), np.nan)
    return h / np.log(n_categories)
