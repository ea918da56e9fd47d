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
    ``all_same`` and one ``all_different``) followed by one count of incomplete items, which
    no rate counts. Returns {metric: counts (..., K + 1) -> percentages}:
    agreement_pct (all_same among complete), disagreement_pct (the other complete types: any
    failure of full agreement), all_different_pct (all three languages different).
    """
    types = list(types)
    complete = list(range(len(types)))
    full = [types.index("all_same")]
    not_full = [i for i in complete if i not in full]
    all_different = [types.index("all_different")]
    return {
        "agreement_pct": lambda c: share_pct(c, full, complete),
        "disagreement_pct": lambda c: share_pct(c, not_full, complete),
        "all_different_pct": lambda c: share_pct(c, all_different, complete),
    }
