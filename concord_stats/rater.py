"""Per-category agreement of several raters who sort items into K nominal categories.

Functions take a *counts matrix*: ``counts[..., i, j]`` is the number of raters who put item
i into category j, with one column per **declared** category (a declared category nobody used
is a column of zeros). Items may have different numbers of raters (missing ratings).

The per-item measures (dispersion index, Pi, group disagreement, entropy …) are row-wise
formulas and live in SQL (``macros/rater_measures.sql``); the dataset-level coefficients
(Fleiss, Cohen, Conger, Gwet, Krippendorff …) are :mod:`concord_stats.rater_coefficients`.
This module holds Fleiss' per-category kappas and the counts matrix of a ratings array.

Malformed input (negative or non-finite counts) raises ValueError.
"""

from __future__ import annotations

import numpy as np


# --------------------------------------------------------------------------------------------
# input handling
# --------------------------------------------------------------------------------------------
def _as_counts(counts: np.ndarray, min_ndim: int = 1) -> np.ndarray:
    """Validated counts: int64 for integer input (exact sums, no float copy), else float64."""
    counts = np.asarray(counts)
    if counts.ndim < min_ndim:
        raise ValueError(f"counts must have at least {min_ndim} dimension(s), got {counts.ndim}")
    if counts.shape[-1] < 1:
        raise ValueError("counts must have at least one category column")
    if counts.dtype.kind in "biu":
        counts = counts.astype(np.int64, copy=False)
    else:
        counts = counts.astype(float, copy=False)
        if not np.isfinite(counts).all():
            raise ValueError("counts must be finite")
    if counts.size and counts.min() < 0:
        raise ValueError("counts must be non-negative")
    return counts


def category_counts(codes: np.ndarray, n_categories: int, missing: int = -1) -> np.ndarray:
    """Counts matrix from a wide ratings array: ``codes[i, r]`` is rater r's category of item i.

    Categories are integer codes 0..K-1; ``missing`` marks an absent rating. Returns an
    (n_items, K) int64 matrix (the same as statsmodels' ``aggregate_raters(codes, n_cat=K)``
    for complete data). Codes outside 0..K-1 raise ValueError.

    Parameters
    ----------
    codes : array_like of int, shape (n_items, n_raters)
        Category code of each rating.
    n_categories : int
        K, the number of declared categories.
    missing : int, default -1
        The code of an absent rating.

    Returns
    -------
    numpy.ndarray of int64, shape (n_items, K)
        Ratings of each item in each category.

    Examples
    --------
    >>> category_counts(np.array([[0, 0, 1], [2, -1, 2]]), n_categories=3).tolist()
    [[2, 1, 0], [0, 0, 2]]
    """
    codes = np.asarray(codes)
    if codes.ndim != 2:
        raise ValueError("codes must be two-dimensional (items x raters)")
    k = int(n_categories)
    present = codes != missing
    if (present & ((codes < 0) | (codes >= k))).any():
        raise ValueError(f"category codes must lie in 0..{k - 1} (or be {missing} for missing)")
    n_items = codes.shape[0]
    complete = bool(present.all())
    width = k if complete else k + 1  # the last column collects the missing ratings
    counts = np.zeros((n_items, width), dtype=np.int64)
    cells = counts.ravel()
    row_start = np.arange(n_items, dtype=np.int64) * width
    # one pass per rater, not a bincount over items × raters codes (2× faster on a million
    # items): within one rater every item's cell appears once, so += counts exactly
    for column in codes.T:
        cells[row_start + (column if complete else np.where(column != missing, column, k))] += 1
    return counts if complete else counts[:, :k]


# --------------------------------------------------------------------------------------------
# per-category kappas
# --------------------------------------------------------------------------------------------
def fleiss_category_kappa(counts: np.ndarray) -> np.ndarray:
    """Fleiss' (1971) kappa of each category j: κ_j = 1 − Σ_i n_ij (n_i − n_ij)/(n_i (n_i − 1))
    / (N' p_j q_j), N' the items with n_i >= 2, p_j their share of ratings in j, q_j = 1 − p_j.

    It is Fleiss' kappa of the two-category table (j, not j). Returns shape (..., K).
    NaN where p_j is 0 or 1 (the category is never or always used: 0/0).

    Parameters
    ----------
    counts : array_like, shape (..., n_items, K)
        The counts matrix.

    Returns
    -------
    numpy.ndarray, shape (..., K)
        The kappa of each category.

    Examples
    --------
    Fleiss (1971), Table 1: 30 patients, 6 psychiatrists, 5 diagnoses (one string of
    diagnoses 1-5 per patient); the published per-category kappas are .245 .245 .520 .471
    .566:

    >>> table = ("444444 222555 233335 555555 222444 113333 333355 113334 114444 555555 "
    ...          "144444 124444 222333 144444 224445 333335 111455 111112 224444 133555 "
    ...          "555555 244444 224555 114444 144445 222224 111155 224444 133333 555555")
    >>> codes = np.array([[int(c) - 1 for c in patient] for patient in table.split()])
    >>> np.round(fleiss_category_kappa(category_counts(codes, 5)), 3).tolist()
    [0.245, 0.245, 0.52, 0.471, 0.566]
    """
    counts = _as_counts(counts, min_ndim=2)
    n = counts.sum(axis=-1)
    pairable = n >= 2
    n_pairable = pairable.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        disagree = np.where(
            pairable[..., None], counts * (n[..., None] - counts) / (n * (n - 1))[..., None], 0.0
        ).sum(axis=-2)
        totals = (counts * pairable[..., None]).sum(axis=-2)
        p = totals / totals.sum(axis=-1, keepdims=True)
        kappa = 1 - disagree / (n_pairable[..., None] * p * (1 - p))
    defined = (n_pairable[..., None] > 0) & (p > 1e-15) & (p < 1 - 1e-15)
    return np.where(defined, kappa, np.nan)


REASON_NO_PAIRS = "no item has two ratings: no rater pairs to compare"
REASON_CATEGORY_NEVER = "category never chosen (share 0): its kappa is 0/0"
REASON_CATEGORY_ALWAYS = "category always chosen (share 1): its kappa is 0/0"


def category_kappas(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Fleiss' per-category kappas of one (n_items, K) counts matrix, with reasons.

    Returns arrays of length K: n_ratings (ratings in the category over items with two or
    more ratings), category_share p_j, category_kappa (:func:`fleiss_category_kappa`) and
    null_reason (None where the kappa is defined).

    Parameters
    ----------
    counts : array_like, shape (n_items, K)
        The counts matrix.

    Returns
    -------
    dict of str to numpy.ndarray
        The four arrays above, each of length K.

    Examples
    --------
    Wikipedia's "Fleiss' kappa" worked example (10 subjects, 14 raters, 5 categories), whose
    published p_j are 0.143, 0.200, 0.279, 0.150 and 0.229:

    >>> counts = np.array([[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
    ...                    [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
    ...                    [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]])
    >>> kappas = category_kappas(counts)
    >>> kappas["n_ratings"].tolist(), np.round(kappas["category_share"], 3).tolist()
    ([20, 28, 39, 21, 32], [0.143, 0.2, 0.279, 0.15, 0.229])
    >>> np.round(kappas["category_kappa"], 3).tolist()
    [0.201, 0.08, 0.172, 0.03, 0.508]
    >>> category_kappas(np.array([[2, 0, 0], [1, 1, 0]]))["null_reason"].tolist()
    [None, None, 'category never chosen (share 0): its kappa is 0/0']
    """
    counts = _as_counts(counts, min_ndim=2)
    if counts.ndim != 2:
        raise ValueError("counts must be two-dimensional (items x categories)")
    pairable = counts.sum(axis=-1) >= 2
    totals = counts[pairable].sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = totals / totals.sum()
    reason = np.full(counts.shape[-1], None, dtype=object)
    if not pairable.any():
        reason[:] = REASON_NO_PAIRS
    else:
        reason[totals == 0] = REASON_CATEGORY_NEVER
        reason[totals == totals.sum()] = REASON_CATEGORY_ALWAYS
    return {
        "n_ratings": totals,
        "category_share": share,
        "category_kappa": fleiss_category_kappa(counts),
        "null_reason": reason,
    }
