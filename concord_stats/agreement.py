"""Rates over categorical outcome counts (agreement %, disagreement %, consistency %)."""

from __future__ import annotations

from collections.abc import Sequence

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
