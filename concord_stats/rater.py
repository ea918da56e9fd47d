"""Agreement and disagreement of several raters who sort items into K nominal categories.

Every function takes a *counts matrix*: ``counts[..., i, j]`` is the number of raters who put
item i into category j, with one column per **declared** category (K is the number of
possible categories, not the number observed: a declared category nobody used is a column of
zeros). Items may have different numbers of raters (missing ratings).

Per-item measures (the reference document ``rater-disagreement-measures.md``, with the
corrections of ``reference/README.md``) map ``(..., K) -> (...)``; dataset-level coefficients
(Fleiss' kappa, Randolph's kappa, Krippendorff's alpha) map ``(..., n_items, K) -> (...)``, so
a stack of bootstrap resamples is one call.

Notation: n = Σ_j n_j raters of an item, S = Σ_j n_j², K declared categories.

Degenerate input returns NaN, never a silent number, and :func:`item_measures` says why in
``null_reason`` (the same texts as the SQL macros in ``macros/rater_measures.sql``):

* one rater (n = 1): Pi, 1 − Pi, GD and Simpson are 0/0 (no rater pairs), H / ln n divides
  by ln 1 = 0;
* one declared category (K = 1): DI and H / ln K divide by K − 1 = 0 and ln 1 = 0;
* no ratings (n = 0): every measure is undefined.

Malformed input (negative or non-finite counts, fewer declared categories than columns)
raises ValueError.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import xlogy

from concord_stats.bootstrap import bootstrap_indices, make_rng, percentile_interval

REASON_NO_RATINGS = "no ratings: every measure is undefined"
REASON_ONE_RATER = (
    "one rater: fleiss_pi, one_minus_pi, group_disagreement and simpson_index are 0/0 "
    "(no rater pairs), entropy_norm_n divides by ln(1) = 0"
)
REASON_ONE_CATEGORY = (
    "one declared category: dispersion_index and entropy_norm_k divide by K - 1 = 0 and ln(1) = 0"
)

#: Column order of :func:`item_measures` (the mart ``rater_item_disagreement`` follows it).
ITEM_MEASURES = (
    "n_raters",
    "n_categories",
    "n_categories_used",
    "dispersion_index",
    "fleiss_pi",
    "one_minus_pi",
    "group_disagreement",
    "simpson_index",
    "gini_simpson",
    "entropy_bits",
    "entropy_nats",
    "entropy_norm_k",
    "entropy_norm_n",
    "null_reason",
)


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


def _item_sums(
    counts: np.ndarray, n_out: np.ndarray | None = None, used_out: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """n = Σ n_j, S = Σ n_j², Σ n_j ln n_j (0 ln 0 = 0) and the number of non-empty
    categories, along the last axis (n and S in the counts' dtype, exact for integers).

    These passes over the counts dominate the cost of the per-item measures, so they run on
    blocks of about 64 000 cells that stay in the CPU cache, with einsum reductions and a
    lookup table of c ln c for integer counts (which are small). ``n_out`` and ``used_out``
    (1-D, one per item) receive n and the used categories when given.
    """
    k = counts.shape[-1]
    flat = counts.reshape(-1, k)
    m = flat.shape[0]
    n = np.empty(m, dtype=counts.dtype) if n_out is None else n_out
    s = np.empty(m, dtype=counts.dtype)
    used = np.empty(m, dtype=np.int64) if used_out is None else used_out
    n_ln_n = np.empty(m, dtype=float)
    table = None
    if counts.dtype.kind == "i" and counts.size and counts.max() <= 1_000_000:
        values = np.arange(int(counts.max()) + 1, dtype=float)
        table = xlogy(values, values)
    rows = max(1, 65_536 // k)
    for start in range(0, m, rows):
        block = flat[start : start + rows]
        part = slice(start, start + block.shape[0])
        np.einsum("ij->i", block, out=n[part])
        np.einsum("ij,ij->i", block, block, out=s[part])
        nonzero = (block > 0).view(np.uint8)
        if k < 256:  # a uint8 sum cannot overflow, and skips einsum's casting loop
            used[part] = np.einsum("ij->i", nonzero)
        else:
            np.einsum("ij->i", nonzero, dtype=np.int64, out=used[part])
        terms = table.take(block) if table is not None else xlogy(block, block)
        np.einsum("ij->i", terms, out=n_ln_n[part])
    shape = counts.shape[:-1]
    return n.reshape(shape), s.reshape(shape), n_ln_n.reshape(shape), used.reshape(shape)


def _declared_k(counts: np.ndarray, n_categories: int | None) -> int:
    k = counts.shape[-1] if n_categories is None else int(n_categories)
    if k < counts.shape[-1]:
        raise ValueError(
            f"n_categories = {k} declared, but counts has {counts.shape[-1]} category columns"
        )
    return k


def category_counts(codes: np.ndarray, n_categories: int, missing: int = -1) -> np.ndarray:
    """Counts matrix from a wide ratings array: ``codes[i, r]`` is rater r's category of item i.

    Categories are integer codes 0..K-1; ``missing`` marks an absent rating. Returns an
    (n_items, K) int64 matrix (the same as statsmodels' ``aggregate_raters(codes, n_cat=K)``
    for complete data). Codes outside 0..K-1 raise ValueError.
    """
    codes = np.asarray(codes)
    if codes.ndim != 2:
        raise ValueError("codes must be two-dimensional (items x raters)")
    k = int(n_categories)
    present = codes != missing
    if ((codes[present] < 0) | (codes[present] >= k)).any():
        raise ValueError(f"category codes must lie in 0..{k - 1} (or be {missing} for missing)")
    n_items = codes.shape[0]
    flat = (np.arange(n_items, dtype=np.int64)[:, None] * k + codes)[present]
    return np.bincount(flat, minlength=n_items * k).reshape(n_items, k)


# --------------------------------------------------------------------------------------------
# per-item measures, (..., K) -> (...)
# --------------------------------------------------------------------------------------------
def dispersion_index(counts: np.ndarray, n_categories: int | None = None) -> np.ndarray:
    """Dispersion index (Walker 1999): DI = K (n² − Σ n_j²) / ((K − 1) n²).

    0 when all raters agree, 1 when the ratings are spread evenly over all K declared
    categories. Undefined (NaN) for K = 1 (0/0; the reference JavaScript returns 1) and n = 0.
    Equal to GD · K (n − 1) / ((K − 1) n).
    """
    counts = _as_counts(counts)
    k = _declared_k(counts, n_categories)
    n = counts.sum(axis=-1)
    s = np.square(counts).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        di = k * (n * n - s) / ((k - 1) * n * n)
    return np.where((n > 0) & (k > 1), di, np.nan)


def fleiss_pi(counts: np.ndarray) -> np.ndarray:
    """Fleiss' (1971) per-item agreement P_i = (Σ n_j² − n) / (n (n − 1)).

    The share of ordered pairs of distinct raters who agree. Undefined (NaN) for n < 2.
    """
    counts = _as_counts(counts)
    n = counts.sum(axis=-1)
    s = np.square(counts).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        pi = (s - n) / (n * (n - 1))
    return np.where(n >= 2, pi, np.nan)


def group_disagreement(counts: np.ndarray) -> np.ndarray:
    """Group disagreement (Whitworth 2007): GD = Σ_j n_j (n − n_j) / (n (n − 1)).

    Each rater disagrees with the n − n_j raters outside their category; GD averages the
    individual disagreements d_i = (n − n_j) / (n − 1) over the n raters. GD = 1 − Pi
    (the document's "1 − GD = Fleiss' kappa" is wrong: it is Pi). NaN for n < 2.
    """
    counts = _as_counts(counts)
    n = counts.sum(axis=-1)
    disagreeing = (counts * (n[..., None] - counts)).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        gd = disagreeing / (n * (n - 1))
    return np.where(n >= 2, gd, np.nan)


def simpson_index(counts: np.ndarray) -> np.ndarray:
    """Simpson's (1949) index of diversity, finite-sample form: 1 − Σ n_j (n_j − 1) / (n (n − 1)).

    The probability that two raters drawn without replacement disagree; equal to GD and
    1 − Pi. NaN for n < 2. Not the same as :func:`gini_simpson`.
    """
    counts = _as_counts(counts)
    n = counts.sum(axis=-1)
    same = (counts * (counts - 1)).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        sdi = 1 - same / (n * (n - 1))
    return np.where(n >= 2, sdi, np.nan)


def gini_simpson(counts: np.ndarray) -> np.ndarray:
    """Gini–Simpson index 1 − Σ p_j², p_j = n_j / n (draws *with* replacement).

    A different quantity from Simpson's finite-sample index: it is (n − 1)/n · GD, so it is
    0 for n = 1 and never reaches 1. NaN for n = 0.
    """
    counts = _as_counts(counts)
    n = counts.sum(axis=-1)
    s = np.square(counts).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        gs = 1 - s / (n * n)
    return np.where(n > 0, gs, np.nan)


def item_measures(counts: np.ndarray, n_categories: int | None = None) -> dict[str, np.ndarray]:
    """Every per-item measure of the reference document, vectorised over items.

    ``counts`` has shape (n_items, K) (or any (..., K)); ``n_categories`` is the declared K
    (default: the number of columns). Returns a dict of arrays keyed by :data:`ITEM_MEASURES`:

    * n_raters n, n_categories K, n_categories_used (non-empty categories);
    * dispersion_index, fleiss_pi, one_minus_pi, group_disagreement, simpson_index,
      gini_simpson (see their functions);
    * entropy_nats H = −Σ_{n_j > 0} p_j ln p_j (Shannon 1948; empty categories skipped, the
      reference JavaScript returns NaN for them), entropy_bits = H / ln 2;
    * entropy_norm_k = H / ln K, the conventional normalisation that reaches 1 for an even
      spread over the K declared categories; entropy_norm_n = H / ln n as in the document
      (with n > K it can never reach 1);
    * null_reason: why some measures are NaN (module docstring), or None.
    """
    counts = _as_counts(counts)
    k = _declared_k(counts, n_categories)
    if counts.ndim == 1:  # one item: compute as a batch of one
        return {name: value[0] for name, value in item_measures(counts[None, :], k).items()}
    shape = counts.shape[:-1]
    flat = counts.reshape(-1, counts.shape[-1])
    m = flat.shape[0]
    out = {name: np.empty(m) for name in ITEM_MEASURES[3:-1]}
    out["n_raters"] = np.empty(m, dtype=counts.dtype)
    out["n_categories_used"] = np.empty(m, dtype=np.int64)
    # blocks of items whose temporaries stay in the CPU cache: on large inputs fresh
    # full-length temporaries cost more (page faults, memory traffic) than the arithmetic
    for start in range(0, m, _BLOCK_ITEMS):
        stop = min(start + _BLOCK_ITEMS, m)
        _measures_block(flat[start:stop], k, {name: a[start:stop] for name, a in out.items()})

    n = out["n_raters"]
    reason = np.full(m, None, dtype=object)
    if k == 1:
        reason[...] = REASON_ONE_CATEGORY
        reason[n == 1] = REASON_ONE_RATER + "; " + REASON_ONE_CATEGORY
    else:
        reason[n == 1] = REASON_ONE_RATER
    reason[n == 0] = REASON_NO_RATINGS
    out["n_categories"] = np.broadcast_to(np.int64(k), (m,))
    out["null_reason"] = reason
    return {name: out[name].reshape(shape) for name in ITEM_MEASURES}


_BLOCK_ITEMS = 65_536


def _measures_block(counts: np.ndarray, k: int, out: dict[str, np.ndarray]) -> None:
    """The per-item measures of a (items, K) block, written into ``out`` (see item_measures).

    Every measure is a function of n, S = Σ n_j², Σ n_j ln n_j and the used categories, as
    in macros/rater_measures.sql.
    """
    n, s, n_ln_n, n_used = _item_sums(counts, out["n_raters"], out["n_categories_used"])
    nf = n.astype(float)
    sf = s.astype(float, copy=False)
    no_pairs = n < 2
    with np.errstate(divide="ignore", invalid="ignore"):
        pairs = nf - 1
        pairs *= nf
        pi = np.subtract(sf, nf, out=out["fleiss_pi"])
        pi /= pairs
        pi[no_pairs] = np.nan
        # 1 − Pi, GD = (n² − S) / (n (n − 1)) and Simpson 1 − (S − n) / (n (n − 1)) are one
        # number; Gini–Simpson 1 − S/n², and DI = K/(K − 1) · (1 − S/n²)
        np.subtract(1, pi, out=out["one_minus_pi"])
        out["group_disagreement"][:] = out["one_minus_pi"]
        out["simpson_index"][:] = out["one_minus_pi"]
        gini = np.divide(sf, nf, out=out["gini_simpson"])
        gini /= nf
        np.subtract(1, gini, out=gini)
        if k > 1:
            np.multiply(gini, k / (k - 1), out=out["dispersion_index"])
        else:
            out["dispersion_index"][:] = np.nan
        # H = ln n − Σ n_j ln n_j / n ≥ 0; exactly 0 for unanimity, not a rounding residue
        ln_n = np.log(nf)
        h = np.divide(n_ln_n, nf, out=out["entropy_nats"])
        np.subtract(ln_n, h, out=h)
        h[n_used == 1] = 0.0
        np.divide(h, np.log(2), out=out["entropy_bits"])
        if k > 1:
            np.divide(h, np.log(k), out=out["entropy_norm_k"])
        else:
            out["entropy_norm_k"][:] = np.nan
        norm_n = np.divide(h, ln_n, out=out["entropy_norm_n"])
    norm_n[no_pairs] = np.nan
    empty = n == 0
    if empty.any():
        for name in ("gini_simpson", "dispersion_index", "entropy_nats", "entropy_bits",
                     "entropy_norm_k"):  # fmt: skip
            out[name][empty] = np.nan


# --------------------------------------------------------------------------------------------
# dataset-level coefficients, (..., n_items, K) -> (...)
# --------------------------------------------------------------------------------------------
def _observed_agreement(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean P_i over items with n_i >= 2, category totals over those items, and their count."""
    x = counts.astype(float, copy=False)
    n = np.einsum("...j->...", x)
    s = np.einsum("...j,...j->...", x, x)
    pairable = n >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        p_i = np.where(pairable, (s - n) / (n * (n - 1)), 0.0)
        n_pairable = pairable.sum(axis=-1)
        p_bar = p_i.sum(axis=-1) / n_pairable
    totals = np.einsum("...ij,...i->...j", x, pairable.astype(float))
    return p_bar, totals, n_pairable


def fleiss_kappa(counts: np.ndarray) -> np.ndarray:
    """Fleiss' (1971) kappa κ = (P̄ − P_e) / (1 − P_e), generalised to unequal raters per item.

    P̄ is the mean of the per-item agreement P_i = (Σ_j n_ij² − n_i) / (n_i (n_i − 1)) and
    P_e = Σ_j p_j² with p_j = Σ_i n_ij / Σ_i n_i, both over the items with n_i >= 2 ratings
    (an item with one rating has no rater pair). With the same n raters for every item this
    is exactly statsmodels' ``fleiss_kappa(table, method='fleiss')``.

    ``counts`` has shape (..., n_items, K). NaN when no item has two ratings, or when
    P_e = 1 (every rating in one category: chance agreement is already perfect, 0/0).
    Range: at most 1; at least −1/(n − 1) with n raters on every item, but with unequal
    raters the unweighted mean P̄ can push it lower (items [8, 1] and [1, 1]: −1.05).
    """
    counts = _as_counts(counts, min_ndim=2)
    p_bar, totals, n_pairable = _observed_agreement(counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = totals / totals.sum(axis=-1, keepdims=True)
        p_e = np.square(p).sum(axis=-1)
        kappa = (p_bar - p_e) / (1 - p_e)
    return np.where((n_pairable > 0) & (p_e < 1 - 1e-15), kappa, np.nan)


def randolph_kappa(counts: np.ndarray, n_categories: int | None = None) -> np.ndarray:
    """Randolph's (2005) free-marginal multirater kappa κ_free = (P̄ − 1/K) / (1 − 1/K).

    P̄ as in :func:`fleiss_kappa`; chance agreement is 1/K for K **declared** categories
    (statsmodels' ``fleiss_kappa(table, method='randolph')`` with a K-column table; nltk's
    ``AnnotationTask.S`` when every category occurs). NaN for K = 1 or no item with two
    ratings.
    """
    counts = _as_counts(counts, min_ndim=2)
    k = _declared_k(counts, n_categories)
    p_bar, _, n_pairable = _observed_agreement(counts)
    if k == 1:
        return np.full(np.shape(p_bar), np.nan)
    kappa = (p_bar - 1 / k) / (1 - 1 / k)
    return np.where(n_pairable > 0, kappa, np.nan)


def fleiss_category_kappa(counts: np.ndarray) -> np.ndarray:
    """Fleiss' (1971) kappa of each category j: κ_j = 1 − Σ_i n_ij (n_i − n_ij)/(n_i (n_i − 1))
    / (N' p_j q_j), N' the items with n_i >= 2, p_j their share of ratings in j, q_j = 1 − p_j.

    It is Fleiss' kappa of the two-category table (j, not j). Returns shape (..., K).
    NaN where p_j is 0 or 1 (the category is never or always used: 0/0).
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


def krippendorff_alpha_nominal(counts: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha for nominal data from a units × values counts matrix.

    α = 1 − D_o / D_e with, over the pairable values (units with m_u >= 2 ratings; a unit
    with a single rating drops out, as Krippendorff 2011 defines):
    D_o ∝ Σ_u (m_u² − Σ_c n_uc²) / (m_u − 1) and D_e ∝ (n² − Σ_c n_c²) / (n − 1), n = Σ_u m_u.
    Equal to ``krippendorff.alpha(value_counts=counts, level_of_measurement='nominal')``
    (whose default level is *interval*). Handles missing ratings.

    ``counts`` has shape (..., n_units, K). NaN when fewer than two pairable values exist or
    every pairable value is in one category (D_e = 0; the krippendorff package raises).
    """
    counts = _as_counts(counts, min_ndim=2)
    x = counts.astype(float, copy=False)
    m = np.einsum("...j->...", x)
    s = np.einsum("...j,...j->...", x, x)
    pairable = m >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        d_o = np.where(pairable, (m * m - s) / (m - 1), 0.0).sum(axis=-1)
    n_c = np.einsum("...ij,...i->...j", x, pairable.astype(float))
    n = n_c.sum(axis=-1)
    d_e = n * n - np.square(n_c).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1 - (n - 1) * d_o / d_e
    return np.where((n >= 2) & (d_e > 0), alpha, np.nan)


# --------------------------------------------------------------------------------------------
# bootstrap
# --------------------------------------------------------------------------------------------
class KappaInterval(NamedTuple):
    """Percentile bootstrap interval of Fleiss' kappa."""

    estimate: float
    ci_low: float
    ci_high: float
    n_resamples: int
    n_undefined: int  # resamples where kappa is 0/0 (every rating in one category); left out


def bootstrap_fleiss_kappa(
    counts: np.ndarray,
    n_resamples: int,
    confidence: float,
    seed: int,
    max_cells: int = 20_000_000,
) -> KappaInterval:
    """Percentile bootstrap interval of :func:`fleiss_kappa`, resampling items with replacement.

    Items are drawn with ``bootstrap_indices(make_rng(seed), n_items, n_resamples)``. A
    resample is summarised by how often it draws each item (w), so its kappa is a weighted
    mean of per-item statistics: P̄ = Σ w_i P_i / Σ w_i and p_j ∝ Σ w_i n_ij over items with
    n_i >= 2; no (resamples × items × K) array is built. Resamples where kappa is undefined
    (all ratings in one category, or no item with two ratings) are left out of the
    percentiles and counted in ``n_undefined``; if all are, the interval is NaN.
    ``max_cells`` bounds the resamples × items block processed at once (memory).
    """
    counts = _as_counts(counts, min_ndim=2)
    if counts.ndim != 2:
        raise ValueError("counts must be two-dimensional (items x categories)")
    if int(n_resamples) < 1:
        raise ValueError("n_resamples must be at least 1")
    n_items, k = counts.shape
    n_resamples = int(n_resamples)
    estimate = float(fleiss_kappa(counts))

    n = counts.sum(axis=-1)
    pairable = (n >= 2).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_i = np.where(n >= 2, (np.square(counts).sum(axis=-1) - n) / (n * (n - 1)), 0.0)
    # columns: pairable, P_i (0 where not pairable), counts of pairable items per category
    per_item = np.column_stack([pairable, p_i, counts * pairable[:, None]])

    rng = make_rng(seed)
    chunk = max(1, int(max_cells) // max(n_items, 1))
    replicates = np.empty(n_resamples)
    for start in range(0, n_resamples, chunk):
        # drawn block by block from one generator: the same indices as one big draw
        rows = min(chunk, n_resamples - start)
        block = bootstrap_indices(rng, n_items, rows)
        offsets = (np.arange(rows, dtype=np.int64) * n_items)[:, None]
        weights = np.bincount((block + offsets).ravel(), minlength=rows * n_items)
        sums = weights.reshape(rows, n_items).astype(float) @ per_item
        with np.errstate(divide="ignore", invalid="ignore"):
            p_bar = sums[:, 1] / sums[:, 0]
            p = sums[:, 2:] / sums[:, 2:].sum(axis=-1, keepdims=True)
            p_e = np.square(p).sum(axis=-1)
            kappa = (p_bar - p_e) / (1 - p_e)
        replicates[start : start + rows] = np.where(
            (sums[:, 0] > 0) & (p_e < 1 - 1e-15), kappa, np.nan
        )
    n_undefined = int(np.isnan(replicates).sum())
    if n_undefined == n_resamples:
        low = high = np.nan
    else:
        low, high = percentile_interval(replicates[~np.isnan(replicates)], confidence)
    return KappaInterval(estimate, float(low), float(high), n_resamples, n_undefined)


# --------------------------------------------------------------------------------------------
# one dataset's summary, with reasons (what the dbt Python models call)
# --------------------------------------------------------------------------------------------
REASON_NO_PAIRS = "no item has two ratings: no rater pairs to compare"
REASON_ONE_CATEGORY_USED = (
    "every rating is in one category: chance agreement is 1, fleiss_kappa and "
    "krippendorff_alpha_nominal are 0/0"
)
REASON_ONE_DECLARED = "one declared category: randolph_kappa divides by 1 - 1/K = 0"
REASON_CATEGORY_NEVER = "category never chosen (share 0): its kappa is 0/0"
REASON_CATEGORY_ALWAYS = "category always chosen (share 1): its kappa is 0/0"


def agreement_summary(
    counts: np.ndarray,
    n_categories: int | None,
    n_resamples: int,
    confidence: float,
    seed: int,
) -> dict[str, float | int | str | None]:
    """Dataset-level agreement of one (n_items, K) counts matrix.

    Returns fleiss_kappa, randolph_kappa (declared K), krippendorff_alpha_nominal, the
    percentile bootstrap interval of Fleiss' kappa (:func:`bootstrap_fleiss_kappa`:
    fleiss_kappa_ci_low, fleiss_kappa_ci_high, bootstrap_resamples,
    bootstrap_undefined_resamples), n_items_pairable (items with two or more ratings) and
    null_reason (why a coefficient is NaN, or None).
    """
    counts = _as_counts(counts, min_ndim=2)
    k = _declared_k(counts, n_categories)
    n = counts.sum(axis=-1)
    pairable = n >= 2
    used = (counts[pairable].sum(axis=0) > 0).sum()
    reasons = []
    if not pairable.any():
        reasons.append(REASON_NO_PAIRS)
    elif used <= 1:
        reasons.append(REASON_ONE_CATEGORY_USED)
    if k == 1:
        reasons.append(REASON_ONE_DECLARED)
    interval = bootstrap_fleiss_kappa(counts, n_resamples, confidence, seed)
    return {
        "n_items_pairable": int(pairable.sum()),
        "fleiss_kappa": float(fleiss_kappa(counts)),
        "randolph_kappa": float(randolph_kappa(counts, k)),
        "krippendorff_alpha_nominal": float(krippendorff_alpha_nominal(counts)),
        "fleiss_kappa_ci_low": interval.ci_low,
        "fleiss_kappa_ci_high": interval.ci_high,
        "bootstrap_resamples": interval.n_resamples,
        "bootstrap_undefined_resamples": interval.n_undefined,
        "null_reason": "; ".join(reasons) or None,
    }


def category_kappas(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Fleiss' per-category kappas of one (n_items, K) counts matrix, with reasons.

    Returns arrays of length K: n_ratings (ratings in the category over items with two or
    more ratings), category_share p_j, category_kappa (:func:`fleiss_category_kappa`) and
    null_reason (None where the kappa is defined).
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
