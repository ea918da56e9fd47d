"""Rates over categorical outcome counts (agreement %, disagreement %, consistency %)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def share_pct(
    counts: np.ndarray, numerator: Sequence[int], denominator: Sequence[int]
) -> np.ndarray:
    """100 · Σ counts[numerator] / Σ counts[denominator], along the last axis.

    For agreement %: numerator = the all-same type, denominator = the complete types (an
    item with a missing or invalid language cannot agree or disagree). A zero denominator
    gives NaN: no item could be judged.

    Parameters
    ----------
    counts : array_like, shape (..., K)
        Counts of each outcome type along the last axis.
    numerator, denominator : sequence of int
        Indices of the types counted above and below the fraction bar.

    Returns
    -------
    numpy.ndarray, shape (...)
        The percentage, NaN where the denominator is 0.

    Examples
    --------
    Six items all the same, three partly, one all different, two incomplete:

    >>> float(share_pct(np.array([6, 3, 1, 2]), numerator=[0], denominator=[0, 1, 2]))
    60.0
    >>> share_pct(np.array([[6, 3, 1, 2], [0, 0, 0, 5]]), [0], [0, 1, 2]).tolist()
    [60.0, nan]
    """
    counts = np.asarray(counts, dtype=float)
    num = counts[..., list(numerator)].sum(axis=-1)
    den = counts[..., list(denominator)].sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, 100.0 * num / np.where(den > 0, den, 1.0), np.nan)


def disagreement_rate_statistics(
    types: Sequence[str],
) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """The rates of the cross-lingual summary as statistics of outcome counts.

    Counts are ordered as ``types`` (the complete disagreement types, one of them
    ``full_agreement`` and one ``no_majority``) followed by one count of incomplete items,
    which no rate counts. Returns {metric: counts (..., K + 1) -> percentages}:
    full_agreement_pct (full agreement among complete items), disagreement_pct (the other
    complete types: any failure of full agreement), no_majority_pct (no answer held by more
    than half of the languages).

    Parameters
    ----------
    types : sequence of str
        The complete disagreement types in count order; must hold ``full_agreement`` and
        ``no_majority``.

    Returns
    -------
    dict of str to callable
        Each metric's statistic of counts, for :func:`concord_stats.bootstrap.bootstrap`.

    Examples
    --------
    >>> rates = disagreement_rate_statistics(["full_agreement", "one_diverged", "no_majority"])
    >>> {metric: float(rate(np.array([6, 3, 1, 2]))) for metric, rate in rates.items()}
    {'full_agreement_pct': 60.0, 'disagreement_pct': 40.0, 'no_majority_pct': 10.0}
    """
    types = list(types)
    complete = list(range(len(types)))
    full = [types.index("full_agreement")]
    not_full = [i for i in complete if i not in full]
    no_majority = [types.index("no_majority")]
    return {
        "full_agreement_pct": lambda c: share_pct(c, full, complete),
        "disagreement_pct": lambda c: share_pct(c, not_full, complete),
        "no_majority_pct": lambda c: share_pct(c, no_majority, complete),
    }
