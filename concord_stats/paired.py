"""Paired comparisons: a group against a baseline on the same units (messages).

The probe scores every message once per group; the paired difference of a group against the
baseline on message i is d_i = x_i(group) - x_i(baseline). Both procedures here work on the
vector d of n paired differences, over the last axis, and are vectorised over leading axes.

- :func:`bootstrap_mean_interval` resamples the units (messages) with replacement and takes a
  percentile interval of the mean difference (Efron & Tibshirani 1993, ch. 13).
- :func:`sign_flip_test` is the paired permutation test: under H0 the two labels of a unit are
  exchangeable, so swapping them (shuffling the group labels within a message) flips the sign of
  d_i. With n units there are 2**n equally likely relabellings; for n = 10 messages that is
  1024, so the null distribution is enumerated exactly rather than sampled (Good 2005,
  *Permutation, Parametric and Bootstrap Tests of Hypotheses*, §3.1).

Degenerate input: an empty vector or a NaN difference raises ValueError (a missing message
would silently change the pairing); a single unit gives a zero-width interval and p = 1.
"""

from __future__ import annotations

import numpy as np

from concord_stats.bootstrap import Interval, bootstrap, make_rng, weighted_means

# Above this many units the 2**n relabellings are sampled instead of enumerated.
MAX_EXACT_UNITS = 20


def _check_differences(differences: np.ndarray) -> np.ndarray:
    d = np.asarray(differences, dtype=float)
    if d.ndim == 0:
        raise ValueError("differences must have at least one axis (the paired units)")
    if d.shape[-1] == 0:
        raise ValueError("no paired units: the differences vector is empty")
    if not np.isfinite(d).all():
        raise ValueError("paired differences contain NaN or inf: a unit lacks one of its pair")
    return d


def bootstrap_mean_interval(
    differences: np.ndarray,
    *,
    n_resamples: int,
    confidence: float,
    seed: int,
) -> Interval:
    """Percentile bootstrap interval of the mean paired difference, resampling units.

    For resample r, draw unit indices i_1..i_n uniformly with replacement and compute
    m_r = (1/n) Σ_k d_{i_k}; the interval is the ((1-c)/2, (1+c)/2) quantiles of m_1..m_R
    (percentile method, Efron & Tibshirani 1993, §13.3). The same resampled units are used
    for every leading row, so rows (groups) are compared on common random numbers.

    Returns an :class:`~concord_stats.bootstrap.Interval` of the leading shape (floats for
    a 1-D input), drawn by :func:`concord_stats.bootstrap.bootstrap`.

    Parameters
    ----------
    differences : array_like, shape (..., n)
        Paired differences, one per unit along the last axis.
    n_resamples, confidence, seed
        As in :func:`concord_stats.bootstrap.bootstrap` (at least one resample).

    Returns
    -------
    Interval
        Of the mean difference, shape (...).

    Examples
    --------
    >>> d = np.array([0.1, 0.3, -0.1, 0.2, 0.4])
    >>> ci = bootstrap_mean_interval(d, n_resamples=1000, confidence=0.95, seed=0)
    >>> round(ci.estimate, 3), round(ci.ci_low, 3), round(ci.ci_high, 3)
    (0.18, 0.02, 0.32)
    """
    d = _check_differences(differences)
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    n = d.shape[-1]
    return bootstrap(
        np.ones(n, dtype=np.int64),
        weighted_means(np.moveaxis(d, -1, 0)),
        n_resamples=int(n_resamples),
        confidence=confidence,
        seed=seed,
    )


def _sign_matrix(n: int, n_permutations: int | None, seed: int) -> tuple[np.ndarray, bool]:
    """All 2**n sign vectors when that is feasible, else n_permutations random ones."""
    if n <= MAX_EXACT_UNITS and (n_permutations is None or 2**n <= n_permutations):
        codes = np.arange(2**n, dtype=np.int64)[:, None]
        bits = (codes >> np.arange(n, dtype=np.int64)) & 1
        return 1.0 - 2.0 * bits, True
    if n_permutations is None or n_permutations < 1:
        raise ValueError(f"{n} units have 2**{n} relabellings: give n_permutations to sample them")
    signs = make_rng(seed).choice(np.array([-1.0, 1.0]), size=(int(n_permutations), n))
    return signs, False


def sign_flip_test(
    differences: np.ndarray,
    *,
    n_permutations: int | None = None,
    seed: int = 0,
) -> tuple[np.ndarray, int, bool]:
    """Two-sided paired permutation (sign-flip) test of H0: mean difference = 0.

    Statistic T(d) = mean(d). Under H0 each d_i is as likely as -d_i, so the null
    distribution is {T(s ⊙ d) : s ∈ {-1, +1}^n}. The two-sided p-value is
    p = #{s : |T(s ⊙ d)| >= |T(d)|} / #s  (Good 2005, §3.1), which for this symmetric null
    equals scipy.stats.permutation_test(..., permutation_type='samples')'s 2·min(p_less,
    p_greater). The relabellings are enumerated exactly when 2**n <= n_permutations (or
    n_permutations is None) and n <= MAX_EXACT_UNITS; otherwise n_permutations random sign
    vectors are drawn with ``seed`` and the identity is not forced in (a slightly
    conservative Monte Carlo p-value would add it; we report the plain estimate).

    A relative tolerance of 1e-12 counts ties as ties despite floating-point noise.
    Returns (p_value, number of relabellings used, exact flag).

    Parameters
    ----------
    differences : array_like, shape (..., n)
        Paired differences, one per unit along the last axis.
    n_permutations : int, optional
        Most relabellings to use; None enumerates all 2**n (n <= MAX_EXACT_UNITS).
    seed : int, default 0
        Seed of the sampled sign vectors.

    Returns
    -------
    p_value : numpy.ndarray, shape (...)
        The two-sided p-value.
    n_relabellings : int
        Sign vectors used.
    exact : bool
        Whether they were all enumerated.

    Examples
    --------
    Four positive differences: only the identity and the all-flipped labelling reach
    |mean| = 2.5, so p = 2/16:

    >>> p_value, n_used, exact = sign_flip_test(np.array([1.0, 2.0, 3.0, 4.0]))
    >>> float(p_value), n_used, exact
    (0.125, 16, True)

    Equal to scipy.stats.permutation_test(..., permutation_type='samples')'s p-value:

    >>> p_value, _, _ = sign_flip_test(np.array([0.1, 0.3, -0.1, 0.2, 0.4]))
    >>> float(p_value)
    0.1875
    """
    d = _check_differences(differences)
    n = d.shape[-1]
    signs, exact = _sign_matrix(n, n_permutations, seed)  # (S, n)
    observed = np.abs(d.mean(axis=-1))  # (...)
    null = np.abs(d @ signs.T) / n  # (..., S)
    tolerance = 1e-12 * np.maximum(1.0, observed)
    p_value = (null >= (observed - tolerance)[..., None]).mean(axis=-1)
    return p_value, int(signs.shape[0]), exact


def paired_summary(
    differences, *, n_resamples: int, confidence: float, seed: int, n_permutations: int
) -> dict:
    """The interval and the sign-flip test of one set of paired differences, as the fields a
    probe mart row carries: ``n_messages``, ``ci_low``, ``ci_high``, ``confidence``,
    ``n_resamples``, ``p_value``, ``n_permutations``, ``permutation_exact``. Both draws use
    ``seed`` (one stream per cell).

    Parameters
    ----------
    differences : array_like, shape (n,)
        Paired differences, one per message.
    n_resamples : int
        Bootstrap resamples.
    confidence : float
        Coverage of the percentile interval.
    seed : int
        Seed of both draws.
    n_permutations : int
        Most relabellings for the sign-flip test.

    Returns
    -------
    dict
        The mart fields above.

    Examples
    --------
    >>> row = paired_summary(np.array([0.1, 0.3, -0.1, 0.2, 0.4]), n_resamples=1000,
    ...                      confidence=0.95, seed=0, n_permutations=10_000)
    >>> {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}
    {'n_messages': 5, 'ci_low': 0.02, 'ci_high': 0.32, 'confidence': 0.95, 'n_resamples': 1000,
     'p_value': 0.188, 'n_permutations': 32, 'permutation_exact': True}
    """
    d = np.asarray(differences, dtype=float)
    interval = bootstrap_mean_interval(d, n_resamples=n_resamples, confidence=confidence, seed=seed)
    p_value, n_used, exact = sign_flip_test(d, n_permutations=n_permutations, seed=seed)
    return {
        "n_messages": len(d),
        "ci_low": float(interval.ci_low),
        "ci_high": float(interval.ci_high),
        "confidence": confidence,
        "n_resamples": n_resamples,
        "p_value": float(p_value),
        "n_permutations": n_used,
        "permutation_exact": exact,
    }
