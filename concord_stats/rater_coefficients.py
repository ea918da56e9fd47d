"""Chance-corrected agreement coefficients of several raters, with standard errors and a
percentile bootstrap over items, as the reference packages define them.

Input is one dataset as an items × raters matrix of category codes ``codes[i, g]`` in
0..q-1 (``-1`` where rater g did not rate item i), q the number of **declared** categories.
Every coefficient has the form κ = (p_a − p_e) / (1 − p_e) with a weight matrix W (q × q,
w_kk = 1; the identity matrix is the unweighted coefficient):

* percent agreement p_a (irrCAC ``pa.coeff.raw``): the mean over the items with two or more
  ratings of Σ_k r_ik (r*_ik − 1) / (r_i (r_i − 1)), r_ik the raters of item i in category
  k, r_i = Σ_k r_ik, r*_ik = Σ_l w_kl r_il (Gwet 2014, ch. 2);
* Fleiss' kappa (Fleiss 1971; Scott's pi for two raters, Scott 1955): p_e = Σ_kl w_kl π_k π_l
  with π_k the mean over items of r_ik / r_i (irrCAC ``fleiss.kappa.raw``);
* Brennan–Prediger (1981): p_e = Σ w_kl / q² (unweighted: 1/q, Randolph's free-marginal
  kappa);
* Gwet's AC1 (Gwet 2008), AC2 with weights: p_e = Σ w_kl / (q (q − 1)) · Σ_k π_k (1 − π_k);
* Conger's kappa (Conger 1980): p_e = Σ_kl w_kl (p̄_k p̄_l − s²_kl / r), p_gk rater g's share
  of category k, p̄_k their mean over the r raters, s²_kl their covariance;
* Cohen's kappa (Cohen 1960; weighted, Cohen 1968) of a pair over the items both rated:
  p_e = Σ_kl w_kl p_ak p_bl; Light's kappa (Light 1971) the mean over rater pairs;
* Krippendorff's alpha (Krippendorff 2011) from the coincidence matrix
  o_kl = Σ_u (n_uk n_ul − [k = l] n_uk) / (m_u − 1) over units with m_u ≥ 2 values:
  α = 1 − (n − 1) Σ o_kl δ²_kl / Σ n_k n_l δ²_kl, δ² the level's metric (nominal, ordinal
  from the marginals, interval (c − k)², ratio ((c − k)/(c + k))²); the same number as
  irrCAC's ``krippen.alpha.raw`` with weights 1 − δ²/max δ².

Weights (:func:`weight_matrix`) are irrCAC's: identity, linear, quadratic, ordinal, radical,
ratio, circular, bipolar, over the numeric category values (ranks 1..q when none is given).

Missing ratings, as each reference defines: p_a and the Fleiss/Gwet/BP/Conger chance terms
use every item with two or more ratings (π_k and p_gk use every rating: irrCAC); Cohen's
kappa uses the items both raters rated (Cohen 1960; sklearn, irr::kappa2); Light's kappa
averages those pairwise kappas (pairwise deletion; irr::kappam.light drops every item with
a missing rating, the same on complete data); Krippendorff's alpha drops units with one value.

Standard errors are irrCAC's linearisation (Gwet 2014, ch. 5; infinite population, f = 0):
var = 1 / (n (n − 1)) Σ_i (κ*_i − κ)², κ*_i each item's influence term. Light's kappa and the
prevalence and bias indices have no reference standard error (null).

Every coefficient is a function of item sums Σ_i c_i t_i of per-item terms t_i; with c_i = 1
that is the estimate, with c_i the number of times item i is drawn it is a bootstrap replicate
(:func:`concord_stats.bootstrap.unit_resample_blocks`), so no loop over items or resamples is
written here: each block of items builds its terms once, and a chunk of resamples is one
matrix product with them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from concord_stats.bootstrap import (
    Interval,
    interval_of,
    make_rng,
    resample_counts,
    unit_resample_blocks,
)
from concord_stats.rater import category_counts

#: irrCAC's weight names, in its order; "identity" is reported as "unweighted".
WEIGHTS = ("identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar")
#: Krippendorff's levels of measurement and the weighting each is reported under.
KRIPPENDORFF_LEVELS = {"nominal": "unweighted", "ordinal": "ordinal", "interval": "quadratic",
                       "ratio": "ratio"}  # fmt: skip

ITEM_BLOCK = 16_384  # items per block of per-item terms (memory stays bounded)


# --------------------------------------------------------------------------------------------
# weights
# --------------------------------------------------------------------------------------------
def weight_matrix(name: str, values: np.ndarray | None = None, q: int | None = None) -> np.ndarray:  # noqa: C901 - one branch per weighting scheme of Gwet (2014) ch. 3, each its formula
    """irrCAC's agreement weights w_kl for categories with numeric ``values`` (sorted).

    With no values the categories are 1..q (irrCAC's rule for non-numeric labels). identity:
    [k = l]; linear: 1 − |x_k − x_l| / (max − min); quadratic: 1 − (x_k − x_l)² / (max − min)²;
    ordinal: 1 − C(|k − l| + 1, 2) / max (ranks, not values); radical: 1 − √|x_k − x_l| /
    √(max − min); ratio: 1 − ((x_k − x_l)/(x_k + x_l))² / ((max − min)/(max + min))²;
    circular: 1 − sin²(π (x_k − x_l) / (max − min + 1)) / max; bipolar: 1 − (x_k − x_l)² /
    ((x_k + x_l − 2 min)(2 max − x_k − x_l)) / max (Gwet 2014, ch. 3).
    One category gives [[1]]. Ratio weights need positive values.

    Parameters
    ----------
    name : str
        One of :data:`WEIGHTS`.
    values : array_like, optional
        Strictly increasing numeric category values.
    q : int, optional
        The number of categories, when no values are given.

    Returns
    -------
    numpy.ndarray, shape (q, q)
        The weights, 1 on the diagonal.

    Examples
    --------
    >>> weight_matrix("linear", q=5)[0].tolist()
    [1.0, 0.75, 0.5, 0.25, 0.0]

    Gwet (2014) / irrCAC: bipolar weights of 1..5, first row 1, .857, .667, .4, 0:

    >>> np.round(weight_matrix("bipolar", np.arange(1, 6))[0], 3).tolist()
    [1.0, 0.857, 0.667, 0.4, 0.0]
    """
    if values is None:
        if q is None:
            raise ValueError("give the category values or their number q")
        values = np.arange(1, int(q) + 1, dtype=float)
    x = np.asarray(values, dtype=float)
    q = x.size
    if name not in WEIGHTS:
        raise ValueError(f"unknown weights {name!r}: use one of {', '.join(WEIGHTS)}")
    if name == "identity" or q == 1:
        return np.eye(q)
    if np.any(np.diff(x) <= 0):
        raise ValueError("category values must be strictly increasing")
    lo, hi = x[0], x[-1]
    d = x[:, None] - x[None, :]
    s = x[:, None] + x[None, :]
    if name == "linear":
        return 1 - np.abs(d) / (hi - lo)
    if name == "quadratic":
        return 1 - (d / (hi - lo)) ** 2
    if name == "ordinal":
        k = np.arange(q)
        m = np.abs(k[:, None] - k[None, :]) + 1
        w = m * (m - 1) / 2
        return 1 - w / w.max()
    if name == "radical":
        return 1 - np.sqrt(np.abs(d)) / np.sqrt(hi - lo)
    if name == "ratio":
        if lo <= 0:
            raise ValueError("ratio weights need positive category values")
        return 1 - (d / s) ** 2 / ((hi - lo) / (hi + lo)) ** 2
    if name == "circular":
        w = np.sin(np.pi * d / (hi - lo + 1)) ** 2
        return 1 - w / w.max()
    # bipolar
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(d == 0, 0.0, d**2 / ((s - 2 * lo) * (2 * hi - s)))
    return 1 - w / w.max()


def krippendorff_distance(level: str, values: np.ndarray, marginals: np.ndarray) -> np.ndarray:
    """Krippendorff's (2011) squared distances δ²_ck, vectorised over leading axes of
    ``marginals`` (n_c, the pairable values per category): nominal [c ≠ k]; ordinal
    (Σ_{g=c..k} n_g − (n_c + n_k)/2)²; interval (x_c − x_k)²; ratio ((x_c − x_k)/(x_c + x_k))².

    Parameters
    ----------
    level : str
        nominal, ordinal, interval or ratio.
    values : array_like, shape (q,)
        Numeric category values.
    marginals : array_like, shape (..., q)
        Pairable values per category.

    Returns
    -------
    numpy.ndarray, shape (..., q, q)
        The squared distances.

    Examples
    --------
    Ordinal, marginals 3, 5, 2: δ²_13 = (3 + 5 + 2 − (3 + 2)/2)² = 56.25:

    >>> krippendorff_distance("ordinal", np.arange(1, 4), np.array([3.0, 5.0, 2.0])).tolist()
    [[0.0, 16.0, 56.25], [16.0, 0.0, 12.25], [56.25, 12.25, 0.0]]
    >>> krippendorff_distance("interval", np.arange(1, 4), np.ones(3))[0].tolist()
    [0.0, 1.0, 4.0]
    """
    x = np.asarray(values, dtype=float)
    n = np.asarray(marginals, dtype=float)
    q = x.size
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(q), (*n.shape[:-1], q, q))
    if level == "ordinal":
        cum = np.cumsum(n, axis=-1)
        lo = np.minimum.outer(np.arange(q), np.arange(q))
        hi = np.maximum.outer(np.arange(q), np.arange(q))
        # Σ_{g=lo..hi} n_g = cum[hi] − cum[lo] + n[lo]
        between = cum[..., hi] - cum[..., lo] + n[..., lo]
        return (between - (n[..., :, None] + n[..., None, :]) / 2) ** 2
    d = x[:, None] - x[None, :]
    if level == "interval":
        return np.broadcast_to(d**2, (*n.shape[:-1], q, q))
    if level == "ratio":
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(d == 0, 0.0, d / (x[:, None] + x[None, :]))
        return np.broadcast_to(r**2, (*n.shape[:-1], q, q))
    raise ValueError(f"unknown level {level!r}: use nominal, ordinal, interval or ratio")


# --------------------------------------------------------------------------------------------
# the data of one dataset
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Ratings:
    """One dataset: ``codes`` (items × raters, -1 missing) over q declared categories.

    Items nobody rated are dropped (they carry no information; irrCAC drops them too).
    """

    codes: np.ndarray
    q: int
    counts: np.ndarray = field(init=False)  # items × q
    complete: bool = field(init=False)  # every rater rated every item

    def __post_init__(self):
        codes = np.asarray(self.codes)
        if codes.ndim != 2:
            raise ValueError("codes must be two-dimensional (items x raters)")
        if codes.dtype.kind not in "iu":
            codes = codes.astype(np.int64)
        rated = (codes >= 0).any(axis=1)
        if not rated.all():
            codes = codes[rated]
        counts = category_counts(codes, self.q)  # checks every code lies in 0..q-1
        # the narrowest type that holds the codes: a million items by 20 raters are 20 MB
        # as int8, 160 MB as int64, and every pass over them reads that much
        narrow = np.int8 if self.q < 2**7 else np.int16 if self.q < 2**15 else np.int32
        codes = codes.astype(narrow, copy=False)
        object.__setattr__(self, "codes", codes)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "complete", bool((codes >= 0).all()))

    @property
    def n_items(self) -> int:
        return self.codes.shape[0]

    # what the estimates and every standard error read, built once per dataset
    @cached_property
    def x(self) -> np.ndarray:
        """The counts as floats (items × q)."""
        return self.counts.astype(float)

    @cached_property
    def ratings_per_item(self) -> np.ndarray:
        return self.x.sum(axis=1)

    @cached_property
    def counts_by_category(self) -> np.ndarray:
        """The counts as floats, category-major (q × items, each row contiguous): per-item
        sums run over q rows instead of reducing a short axis per item."""
        return np.ascontiguousarray(self.x.T)

    @cached_property
    def _quadratic_forms(self) -> dict[bytes, np.ndarray]:
        return {}

    def quadratic_forms(self, w: np.ndarray) -> np.ndarray:
        """Σ_kl w_kl r_ik r_il for every item i; once per weight matrix (the nominal and
        interval alphas' weights are the identity and quadratic weightings')."""
        key = np.ascontiguousarray(w, dtype=float).tobytes()
        if key not in self._quadratic_forms:
            x_t = self.counts_by_category
            self._quadratic_forms[key] = ((w @ x_t) * x_t).sum(axis=0)
        return self._quadratic_forms[key]

    @cached_property
    def category_totals(self) -> np.ndarray:
        """Ratings per category over all items (q,)."""
        return self.counts.sum(axis=0)

    @cached_property
    def onehot_gram(self) -> np.ndarray:
        """Xᵀ X for X = items × (rater, category) indicators: cell (g·q + k, h·q + l) counts
        the items rater g put in k and rater h in l, so it holds every pair's joint table
        and, on its diagonal, every rater's category counts. A missing rating has no
        indicator: each pair's table counts the items both rated.

        A float32 matrix product per block of items (exact: a block's counts stay below
        2**24) beats one bincount per pair of raters by 2× on a million items."""
        r, q = self.n_raters, self.q
        gram = np.zeros((r * q, r * q))
        # row k of `indicators` is category k's one-hot row; row q (a missing rating) is 0
        indicators = np.vstack([np.eye(q, dtype=np.float32), np.zeros((1, q), np.float32)])
        for lo in range(0, self.n_items, ITEM_BLOCK):
            block = self.codes[lo : lo + ITEM_BLOCK]
            if not self.complete:
                block = np.where(block >= 0, block, q)
            onehot = np.take(indicators, block, axis=0).reshape(len(block), -1)
            gram += onehot.T @ onehot
        return gram

    @cached_property
    def rater_counts(self) -> np.ndarray:
        """How often each rater chose each category (raters × q)."""
        r, q = self.n_raters, self.q
        return np.diagonal(self.onehot_gram).reshape(r, q).copy()

    @property
    def n_raters(self) -> int:
        return self.codes.shape[1]


def _pairs(r: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.triu_indices(r, k=1)
    return a, b


# --------------------------------------------------------------------------------------------
# per-item terms and their sums: the one place the formulas read the data
# --------------------------------------------------------------------------------------------
#: resamples whose statistic is evaluated together (memory: a chunk's pair tables)
STATISTIC_CHUNK = 1000
#: the bootstrap resamples patterns of ratings instead of items where there are at least
#: this many items per pattern
PATTERN_SHARE = 4


class _Terms:
    """Per-item terms of one dataset, summed over items with weights c.

    The sums are a dict of (R, ...) arrays: the terms that do not depend on the weighting
    once, and ``pa:<w>`` and ``agree:<w>`` per weighting w. :meth:`unit_sums` gives them for
    c = 1 (the estimate, R = 1) from small sufficient statistics; :meth:`replicate_sums` for
    the bootstrap resamples, where the terms of a block of items are one matrix and meet
    every resample in one matrix product: memory stays at O(block × columns).
    """

    def __init__(self, data: Ratings, weights: dict[str, np.ndarray]):
        self.data, self.weights = data, weights
        self.pairwise = data.n_raters >= 2  # pair terms, Conger's and Cohen's kappas

    def _columns(self) -> list[tuple[str, int]]:
        """The per-item terms' names and widths, in their order in a block's matrix. On
        complete data ``rated`` and ``both`` are the same for every rater and pair (the
        items) and are not columns: :meth:`replicate_sums` fills them from ``one``."""
        d = self.data
        r, q = d.n_raters, d.q
        columns = [("one", 1), ("pairable", 1), ("share", q), ("coinc", q * q), ("self", q)]
        columns += [(f"pa:{name}", 1) for name in self.weights]
        if self.pairwise:
            columns += [] if d.complete else [("rated", r)]
            columns += [("onehot", r * q)]
            pairs = r * (r - 1) // 2
            columns += [(f"agree:{name}", pairs) for name in self.weights]
            if not d.complete:
                columns += [("both", pairs), ("marg_a", pairs * q), ("marg_b", pairs * q)]
        return columns

    def _block(self, lo: int, hi: int, matrix: np.ndarray) -> np.ndarray:
        """The terms of items lo..hi-1, one row per term and one column per item, written
        into the first columns of ``matrix`` (terms × ITEM_BLOCK), which it returns.

        One buffer serves every block: on a million items, allocating each block's
        arrays anew cost more than computing them. Term-major rows keep every write and
        gather below contiguous (a pair's cells are one row)."""
        d = self.data
        x = d.counts_by_category[:, lo:hi]
        q, b = x.shape
        out, start = {}, 0
        for name, width in self._columns():
            out[name] = matrix[start : start + width, :b]
            start += width
        r = d.ratings_per_item[lo:hi]
        pairable = r >= 2
        with np.errstate(divide="ignore", invalid="ignore"):
            inv_pairs = np.where(pairable, 1.0 / (r * (r - 1)), 0.0)
            # coincidences n_uk n_ul / (m_u − 1) of pairable units (Krippendorff)
            inv = np.where(pairable, 1.0 / (r - 1), 0.0)
        out["one"][:] = 1.0
        out["pairable"][0] = pairable
        np.divide(x, r, out=out["share"])
        np.multiply(x, inv, out=out["self"])
        np.multiply(out["self"][:, None, :], x[None, :, :], out=out["coinc"].reshape(q, q, b))
        for name, w in self.weights.items():
            out[f"pa:{name}"][0] = (x * (w @ x - 1)).sum(0) * inv_pairs
        if not self.pairwise:
            return matrix[:, :b]
        codes = np.ascontiguousarray(d.codes[lo:hi].T)  # raters × items
        # (rater, category) × items; a missing rating has no indicator
        onehot = codes[:, None, :] == np.arange(q)[None, :, None]
        out["onehot"][:] = onehot.reshape(-1, b)
        if not d.complete:
            out["rated"][:] = codes >= 0
        a, z = _pairs(d.n_raters)
        # each pair's two categories as one cell of a (q + 1)² table whose last row and
        # column (a missing rating) weigh nothing: one gather per weighting
        padded = np.where(codes >= 0, codes, q).astype(np.int16)
        cell = padded[a] * (q + 1) + padded[z]
        for name, w in self.weights.items():
            table = np.zeros((q + 1, q + 1))
            table[:q, :q] = w
            np.take(table.ravel(), cell, out=out[f"agree:{name}"], mode="clip")
        if not d.complete:
            both = (padded[a] < q) & (padded[z] < q)
            out["both"][:] = both
            out["marg_a"][:] = (onehot[a] & both[:, None, :]).reshape(-1, b)
            out["marg_b"][:] = (onehot[z] & both[:, None, :]).reshape(-1, b)
        return matrix[:, :b]

    def unit_sums(self) -> dict[str, np.ndarray]:
        """The same sums for c = 1 (the estimate) from small sufficient statistics, without
        materialising the per-item terms: counts-weighted Gram matrices for the
        coincidences, and the one-hot Gram matrix that holds every rater's category counts
        and every pair's joint table."""
        d = self.data
        x = d.x
        q = d.q
        r = d.ratings_per_item
        pairable = r >= 2
        with np.errstate(divide="ignore", invalid="ignore"):
            inv_pairs = np.where(pairable, 1.0 / (r * (r - 1)), 0.0)
            inv = np.where(pairable, 1.0 / (r - 1), 0.0)
        out = {
            "one": np.array([float(len(r))]),
            "pairable": np.array([float(pairable.sum())]),
            "share": ((1.0 / r) @ x)[None, :],
            "coinc": ((x * inv[:, None]).T @ x).reshape(1, -1),
            "self": (inv @ x)[None, :],
        }
        # Σ_i Σ_k r_ik (Σ_l w_kl r_il − 1) / (r_i (r_i − 1)) = Σ_kl w_kl G_kl − Σ_i r_i / …
        # with G = Σ_i r_i r_iᵀ / (r_i (r_i − 1)): one Gram matrix for every weighting
        gram_pairs = (x * inv_pairs[:, None]).T @ x
        for name, w in self.weights.items():
            out[f"pa:{name}"] = np.array([float((w * gram_pairs).sum() - r @ inv_pairs)])
        if not self.pairwise:
            return out
        raters = d.n_raters
        gram = d.onehot_gram
        tables = gram.reshape(raters, q, raters, q).transpose(0, 2, 1, 3)  # (g, h, k, l)
        per_rater = d.rater_counts
        out["rated"] = per_rater.sum(1)[None, :]
        out["onehot"] = per_rater.reshape(1, -1)
        a, z = _pairs(raters)
        joint = tables[a, z]  # (pairs, q, q)
        for name, w in self.weights.items():
            out[f"agree:{name}"] = np.einsum("kl,pkl->p", w, joint)[None, :]
        out["both"] = joint.sum(axis=(1, 2))[None, :]
        out["marg_a"] = joint.sum(axis=2).reshape(1, -1)
        out["marg_b"] = joint.sum(axis=1).reshape(1, -1)
        return out

    def replicate_sums(self, n_resamples: int, seed: int) -> dict[str, np.ndarray]:
        """The sums for ``n_resamples`` bootstrap resamples of the items, (R, ...) each.

        Items that repeat one pattern of ratings have the same terms: where the patterns are
        few (a model's answers in three languages: at most (q + 1)³ patterns, however many
        items), each resample is how often it draws each pattern, Multinomial(n, pattern
        counts / n) (:func:`concord_stats.bootstrap.resample_counts`), exactly the
        distribution of resampling the items, in O(patterns) per resample instead of
        O(items). Otherwise the resample counts come block of items by block of items
        (:func:`concord_stats.bootstrap.unit_resample_blocks`), so each block's terms are
        built once and meet every resample in one matrix product per chunk of resamples.
        """
        patterns = self._repeated_patterns()
        if patterns is not None:
            return self._pattern_replicate_sums(*patterns, n_resamples, seed)
        columns = self._columns()
        matrix = np.empty((sum(w for _, w in columns), min(ITEM_BLOCK, self.data.n_items)))
        total = np.zeros((int(n_resamples), matrix.shape[0]))
        terms, built = None, None
        for lo, hi, r0, counts in unit_resample_blocks(
            self.data.n_items, n_resamples, seed, ITEM_BLOCK
        ):
            if built != lo:
                terms, built = self._block(lo, hi, matrix), lo
            assert terms is not None
            total[r0 : r0 + counts.shape[0]] += counts.astype(float) @ terms.T
        return self._as_sums(total)

    def _repeated_patterns(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The distinct rows of ratings and how many items have each, where they are at most
        a quarter of the items (None otherwise; not looked for where (q + 1)^raters patterns
        are possible, more than the items)."""
        d = self.data
        if (int(d.q) + 1) ** int(d.n_raters) > d.n_items:
            return None
        patterns, multiplicity = np.unique(d.codes, axis=0, return_counts=True)
        if len(patterns) * PATTERN_SHARE > d.n_items:
            return None
        return patterns, multiplicity

    def _pattern_replicate_sums(
        self, patterns: np.ndarray, multiplicity: np.ndarray, n_resamples: int, seed: int
    ) -> dict[str, np.ndarray]:
        distinct = _Terms(Ratings(patterns, self.data.q), self.weights)
        columns = distinct._columns()
        terms = distinct._block(
            0, len(patterns), np.empty((sum(w for _, w in columns), len(patterns)))
        )
        rng = make_rng(seed)
        total = np.concatenate([
            resample_counts(multiplicity, min(STATISTIC_CHUNK, int(n_resamples) - r0), rng)
            @ terms.T
            for r0 in range(0, int(n_resamples), STATISTIC_CHUNK)
        ])  # fmt: skip
        return self._as_sums(total)

    def _as_sums(self, total: np.ndarray) -> dict[str, np.ndarray]:
        """(R, columns) replicate sums as the dict of named sums the statistic reads."""
        columns = self._columns()
        widths = [width for _, width in columns]
        out = dict(zip([name for name, _ in columns],
                       np.split(total, np.cumsum(widths)[:-1], axis=1), strict=True))  # fmt: skip
        if self.data.complete and self.pairwise:
            # every rater rated every item, and every pair both rated it
            out["rated"] = np.repeat(out["one"], self.data.n_raters, axis=1)
            n_pairs = self.data.n_raters * (self.data.n_raters - 1) // 2
            out["both"] = np.repeat(out["one"], n_pairs, axis=1)
        return {k: (v[:, 0] if k in _SCALARS or k.startswith("pa:") else v) for k, v in out.items()}

    def for_weighting(self, sums: dict, name: str) -> dict:
        """The sums as one weighting's formulas read them (pa, agree, agree_exact)."""
        view = dict(sums, pa=sums[f"pa:{name}"])
        if self.pairwise:
            view["agree"] = sums[f"agree:{name}"]
            view["agree_exact"] = sums["agree:identity"]
        return view


_SCALARS = {"one", "pairable", "pa"}


# --------------------------------------------------------------------------------------------
# coefficients from sums, vectorised over resamples (leading axis R)
# --------------------------------------------------------------------------------------------
def _kappa(pa, pe):
    with np.errstate(divide="ignore", invalid="ignore"):
        k = (pa - pe) / (1 - pe)
    return np.where(np.abs(1 - pe) > 1e-12, k, np.nan)


def _count_based(s: dict, w: np.ndarray) -> dict[str, np.ndarray]:
    q = w.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        pa = np.where(s["pairable"] > 0, s["pa"] / s["pairable"], np.nan)
        pi = s["share"] / s["one"][:, None]
    pe_fleiss = np.einsum("kl,rk,rl->r", w, pi, pi)
    out = {"percent_agreement": pa, "fleiss_kappa": _kappa(pa, pe_fleiss)}
    if q >= 2:
        out["brennan_prediger"] = _kappa(pa, np.full_like(pa, w.sum() / q**2))
        pe_gwet = w.sum() / (q * (q - 1)) * (pi * (1 - pi)).sum(axis=1)
        out["gwet"] = _kappa(pa, pe_gwet)
    else:
        out["brennan_prediger"] = out["gwet"] = np.full_like(pa, np.nan)
    return out


def fleiss_kappa_of_patterns(counts: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """Fleiss' kappa (unweighted) as a statistic of how many items show each pattern of
    category counts, for :func:`concord_stats.bootstrap.bootstrap`.

    Fleiss' kappa reads an item only through its counts r_ik (which raters chose what does
    not enter), so items with the same counts are one pattern, and a dataset is the
    multiplicity of each pattern: a model's answers in three languages over four options
    have at most 35 complete patterns, however many items. The same formulas as
    :func:`dataset_coefficients` (items with one rating enter π_k, not p_a).

    Parameters
    ----------
    counts : array_like of int, shape (n_patterns, q)
        Ratings of each pattern in each category; every pattern has at least one.

    Returns
    -------
    callable
        (R, n_patterns) multiplicities to (R,) kappas, NaN where chance agreement is 1.

    Examples
    --------
    Four items of three ratings: (3, 0) twice, (2, 1) and (0, 3); p_a = 5/6, p_e = 5/9:

    >>> kappa = fleiss_kappa_of_patterns(np.array([[3, 0], [2, 1], [0, 3]]))
    >>> round(float(kappa(np.array([[2, 1, 1]]))[0]), 6)
    0.625
    """
    x = np.asarray(counts, dtype=float)
    if x.ndim != 2 or (x < 0).any() or (x.sum(axis=1) < 1).any():
        raise ValueError("counts must be patterns x categories, each pattern rated at least once")
    r = x.sum(axis=1)
    pairable = r >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        agreement = np.where(pairable, (x * (x - 1)).sum(axis=1) / (r * (r - 1)), 0.0)
    # the per-pattern terms whose sums _count_based reads: one, pairable, share (q), pa
    terms = np.column_stack([np.ones(len(x)), pairable, x / r[:, None], agreement])
    identity = np.eye(x.shape[1])

    def statistic(multiplicity: np.ndarray) -> np.ndarray:
        sums = np.asarray(multiplicity, dtype=float) @ terms
        view = {"one": sums[:, 0], "pairable": sums[:, 1], "share": sums[:, 2:-1],
                "pa": sums[:, -1]}  # fmt: skip
        return _count_based(view, identity)["fleiss_kappa"]

    return statistic


def _alpha(s: dict, delta: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha from coincidence sums; ``delta`` (R, q, q) or (q, q)."""
    r = s["coinc"].shape[0]
    q = s["self"].shape[1]
    o = s["coinc"].reshape(r, q, q) - s["self"][:, :, None] * np.eye(q)
    n_k = o.sum(axis=2)
    n = n_k.sum(axis=1)
    d_o = (o * delta).sum(axis=(1, 2))
    d_e = np.einsum("rk,rl,rkl->r", n_k, n_k, np.broadcast_to(delta, (r, q, q)))
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1 - (n - 1) * d_o / d_e
    return np.where((n >= 2) & (d_e > 1e-12 * np.maximum(n, 1) ** 2), alpha, np.nan)


def _conger(s: dict, w: np.ndarray, r: int, q: int) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        pa = np.where(s["pairable"] > 0, s["pa"] / s["pairable"], np.nan)
        p = s["onehot"].reshape(-1, r, q) / s["rated"][:, :, None]  # p_gk
    p_mean = p.mean(axis=1)
    s2 = (np.einsum("rgk,rgl->rkl", p, p) - r * p_mean[:, :, None] * p_mean[:, None, :]) / (r - 1)
    pe = np.einsum("kl,rkl->r", w, p_mean[:, :, None] * p_mean[:, None, :] - s2 / r)
    return _kappa(pa, pe)


def _pair_kappas(s: dict, w: np.ndarray, r: int, q: int, complete: bool) -> dict[str, np.ndarray]:
    """Cohen's kappa, percent agreement and Scott's pi of every pair, (R, P)."""
    a, b = _pairs(r)
    both = s["both"]
    with np.errstate(divide="ignore", invalid="ignore"):
        po = s["agree"] / both
        po_exact = s["agree_exact"] / both
        if complete:
            marg = s["onehot"].reshape(-1, r, q) / both[:, :1, None]
            pa_, pb_ = marg[:, a, :], marg[:, b, :]
        else:
            pa_ = s["marg_a"].reshape(-1, len(a), q) / both[:, :, None]
            pb_ = s["marg_b"].reshape(-1, len(a), q) / both[:, :, None]
    pe_cohen = np.einsum("kl,rpk,rpl->rp", w, pa_, pb_)
    pooled = (pa_ + pb_) / 2
    pe_scott = np.einsum("kl,rpk,rpl->rp", w, pooled, pooled)
    defined = both > 0
    return {
        "cohen_kappa": np.where(defined, _kappa(po, pe_cohen), np.nan),
        "scott_pi": np.where(defined, _kappa(po, pe_scott), np.nan),
        "percent_agreement": np.where(defined, po, np.nan),
        "percent_agreement_exact": np.where(defined, po_exact, np.nan),
        "bias_index": np.where(defined, np.abs(pa_ - pb_).sum(axis=2) / 2, np.nan),
        "marg_a": pa_,
        "marg_b": pb_,
        "n_items": both,
    }


# --------------------------------------------------------------------------------------------
# standard errors (irrCAC's linearisation), from the observed data
# --------------------------------------------------------------------------------------------
def _standard_error(terms: np.ndarray, estimate: float) -> float:
    """√(Σ_i (κ*_i − κ)² / (n (n − 1))) of the linearised item terms (irrCAC, f = 0)."""
    n = terms.shape[0]
    if n < 2 or not np.isfinite(estimate):
        return np.nan
    return float(np.sqrt(((terms - estimate) ** 2).sum() / (n * (n - 1))))


def standard_errors(data: Ratings, w: np.ndarray, est: dict[str, float]) -> dict[str, float]:
    """irrCAC's standard errors of percent agreement, Fleiss, BP, Gwet, Conger and alpha
    (``*.raw`` functions; f = 0), for the estimates ``est`` of the same weighting.

    Parameters
    ----------
    data : Ratings
        The dataset.
    w : numpy.ndarray, shape (q, q)
        The weights.
    est : dict of str to float
        Estimates keyed percent_agreement, fleiss_kappa, brennan_prediger, gwet and,
        for three or more raters, conger_kappa.

    Returns
    -------
    dict of str to float
        The standard error of each estimate; empty when no item has two ratings.

    Examples
    --------
    Krippendorff's (2011) reliability data, Gwet's (2014) ``raw_4raters``: 12 units, 4
    raters, values 1-5 ("." missing), one string per unit; irrCAC's documentation gives
    the standard errors of AC1 (0.14295) and Fleiss' kappa (0.15302):

    >>> units = "11.1 2232 3333 3333 2222 1234 4444 1121 2222 .555 ..11 ..3."
    >>> codes = np.array([[int(v) - 1 if v != "." else -1 for v in u] for u in units.split()])
    >>> est = point_estimates(codes, 5)
    >>> est = {"percent_agreement": est[("percent_agreement", "unweighted")],
    ...        "fleiss_kappa": est[("fleiss_kappa", "unweighted")],
    ...        "brennan_prediger": est[("brennan_prediger", "unweighted")],
    ...        "gwet": est[("gwet_ac1", "unweighted")],
    ...        "conger_kappa": est[("conger_kappa", "unweighted")]}
    >>> se = standard_errors(Ratings(codes, 5), np.eye(5), est)
    >>> round(se["gwet"], 5), round(se["fleiss_kappa"], 5)
    (0.14295, 0.15302)
    """
    x = data.x
    n, q = x.shape
    r_i = data.ratings_per_item
    pairable = r_i >= 2
    n2 = pairable.sum()
    out: dict[str, float] = {}
    if n2 == 0:
        return out
    sum_q = data.quadratic_forms(w) - r_i  # Σ_k r_ik (Σ_l w_kl r_il − 1)
    den = r_i * (r_i - 1)
    den = den - (den == 0)
    pa_i = sum_q / den
    pa = est["percent_agreement"]
    pi = ((1.0 / r_i) @ x) / n

    def linear(kappa, pe, pe_i):
        if not np.isfinite(kappa) or abs(1 - pe) < 1e-12:
            return np.nan
        k_i = (n / n2) * (pa_i - pe * pairable) / (1 - pe)
        if pe_i is not None:
            k_i = k_i - 2 * (1 - kappa) * (pe_i - pe) / (1 - pe)
        return _standard_error(k_i, kappa)

    out["percent_agreement"] = _standard_error((n / n2) * pa_i, pa)
    if q >= 2:
        pe_bp = w.sum() / q**2
        out["brennan_prediger"] = linear(est["brennan_prediger"], pe_bp, None)
        t = w.sum() / (q * (q - 1))
        pe_g = t * (pi * (1 - pi)).sum()
        out["gwet"] = linear(est["gwet"], pe_g, t * (x @ (1 - pi)) / r_i)
    pe_f = float(pi @ w @ pi)
    pi_w = (w @ pi + w.T @ pi) / 2
    out["fleiss_kappa"] = linear(est["fleiss_kappa"], pe_f, (x @ pi_w) / r_i)
    if "conger_kappa" in est:
        out["conger_kappa"] = _conger_se(data, w, est["conger_kappa"], pa_i, pairable)
    return out


def se_inference(
    estimate: np.ndarray, std_error: np.ndarray, n_items: np.ndarray, confidence: float
) -> dict[str, np.ndarray]:
    """irrCAC's inference from a standard error: z, a two-sided p-value and an interval.

    z = estimate / SE; p = 2 (1 − T_{n−1}(|z|)), T Student's t with n − 1 degrees of freedom
    (n items); the interval is estimate ± t_{(1+confidence)/2, n−1} · SE with its upper end
    capped at 1, as irrCAC's ``*.raw`` functions print them. This interval assumes the
    linearised estimate is near normal; the percentile bootstrap (``ci_low``, ``ci_high``)
    does not. Where SE is 0 or undefined all four are NaN (irrCAC substitutes 1e-15 and
    prints p = 0; a z of ±∞ says nothing). irrCAC's Brennan-Prediger p-value is one-sided,
    unlike its others: here every p-value is two-sided.

    Parameters
    ----------
    estimate, std_error, n_items : array_like
        The coefficient, its standard error and the items it is computed on.
    confidence : float
        Coverage of the interval.

    Returns
    -------
    dict of str to numpy.ndarray
        ``z``, ``p_value``, ``se_ci_low``, ``se_ci_high``.

    Examples
    --------
    Fleiss' kappa 0.76117 with SE 0.15302 over 12 items (Gwet 2014, ``raw_4raters``; irrCAC
    prints the interval (0.42438, 1) and p = 0.00042):

    >>> out = se_inference(np.array([0.76117]), np.array([0.15302]), np.array([12]), 0.95)
    >>> [round(float(out[k][0]), 5) for k in ("z", "p_value", "se_ci_low", "se_ci_high")]
    [4.97432, 0.00042, 0.42438, 1.0]
    """
    # Student's t from scipy.special, the functions scipy.stats.t calls (the same values):
    # importing scipy.stats costs about 1 s in every dbt build that runs this model
    from scipy.special import stdtr, stdtrit

    estimate, std_error = np.asarray(estimate, float), np.asarray(std_error, float)
    df = np.asarray(n_items, float) - 1
    usable = np.isfinite(estimate) & np.isfinite(std_error) & (std_error > 0) & (df >= 1)
    safe_se = np.where(usable, std_error, 1.0)
    safe_df = np.where(usable, df, 1.0)
    z = estimate / safe_se
    p_value = 2 * stdtr(safe_df, -np.abs(z))
    half = stdtrit(safe_df, (1 + confidence) / 2) * safe_se
    out = {
        "z": z,
        "p_value": p_value,
        "se_ci_low": estimate - half,
        "se_ci_high": np.minimum(estimate + half, 1.0),
    }
    return {key: np.where(usable, value, np.nan) for key, value in out.items()}


def _conger_se(data: Ratings, w, kappa, pa_i, pairable) -> float:
    n, r = data.codes.shape
    per_rater = data.rater_counts
    n_g = per_rater.sum(1).astype(float)  # ratings per rater
    with np.errstate(divide="ignore", invalid="ignore"):  # a rater with no rating: NaN
        p = per_rater / n_g[:, None]  # (r, q)
    p_mean = p.mean(0)
    s2 = (p.T @ p - r * np.outer(p_mean, p_mean)) / (r - 1)
    pe = float((w * (np.outer(p_mean, p_mean) - s2 / r)).sum())
    if not np.isfinite(kappa) or abs(1 - pe) < 1e-12:
        return np.nan
    # irrCAC: λ_ig = Σ_k (r p̄_k − p_gk) n/n_g Σ_l w_kl (δ_igl − (ε_ig − n_g/n) p_gl). With
    # B = ((r p̄ − p) n/n_g) W (raters × categories) that is B[g, x_ig] ε_ig − (ε_ig − n_g/n)
    # Σ_l B_gl p_gl: a gather per rating instead of raters × categories² per item
    b_mat = ((r * p_mean[None, :] - p) * (n / n_g)[:, None]) @ w
    c_g = (b_mat * p).sum(1)
    # Σ_g λ_ig = Σ_g B[g, x_ig] ε_ig − Σ_g ε_ig c_g + Σ_g (n_g/n) c_g: one gather from a
    # row of B per rater (a missing rating reads the appended 0)
    gathered, rated_c = np.zeros(n), np.zeros(n) if not data.complete else c_g.sum()
    for g, column in enumerate(data.codes.T):
        if data.complete:
            gathered += b_mat[g][column]
        else:
            gathered += np.append(b_mat[g], 0.0)[column]  # -1 reads the last cell
            rated_c += (column >= 0) * c_g[g]
    lam_sum = gathered - rated_c + (n_g / n) @ c_g
    pe_i = lam_sum / (r * (r - 1))
    n2 = pairable.sum()
    k_i = n / n2 * (pa_i - pe * pairable) / (1 - pe)
    k_i = k_i - 2 * (1 - kappa) * (pe_i - pe) / (1 - pe)
    return _standard_error(k_i, kappa)


def alpha_standard_error(data: Ratings, w: np.ndarray, alpha: float) -> float:
    """irrCAC ``krippen.alpha.raw``'s standard error, weights w = 1 − δ²/max δ².

    Parameters
    ----------
    data : Ratings
        The dataset.
    w : numpy.ndarray, shape (q, q)
        The weights (the identity for the nominal level).
    alpha : float
        The estimate of alpha.

    Returns
    -------
    float
        The standard error; NaN with fewer than two pairable items or an undefined alpha.

    Examples
    --------
    Krippendorff's (2011) reliability data, Gwet's (2014) ``raw_4raters``: 12 units, 4
    raters, values 1-5 ("." missing), one string per unit; irrCAC 0.4.4 gives 0.1456 for
    the nominal alpha:

    >>> units = "11.1 2232 3333 3333 2222 1234 4444 1121 2222 .555 ..11 ..3."
    >>> codes = np.array([[int(v) - 1 if v != "." else -1 for v in u] for u in units.split()])
    >>> alpha = point_estimates(codes, 5)[("krippendorff_alpha", "unweighted")]
    >>> round(alpha_standard_error(Ratings(codes, 5), np.eye(5), alpha), 4)
    0.1456
    """
    x, r_i = data.x, data.ratings_per_item
    pairable = r_i >= 2
    if pairable.sum() < 2 or not np.isfinite(alpha):
        return np.nan
    sum_q = data.quadratic_forms(w) - r_i
    if not pairable.all():
        x, r_i, sum_q = x[pairable], r_i[pairable], sum_q[pairable]
    n = x.shape[0]
    r_mean = r_i.mean()
    eps = 1 / r_i.sum()
    pa_prime = (sum_q / (r_mean * (r_i - 1))).sum() / n
    pa = (1 - eps) * pa_prime + eps
    pi = (data.category_totals if x is data.x else x.sum(0)) / (r_mean * n)
    pe = float(pi @ w @ pi)
    if abs(1 - pe) < 1e-12:
        return np.nan
    alpha_prime = (pa_prime - pe) / (1 - pe)
    pa_i = sum_q / (r_mean * (r_i - 1)) - pa * (r_i - r_mean) / r_mean
    k_i = (pa_i - pe) / (1 - pe)
    pi_w = (w @ pi + w.T @ pi) / 2
    pe_i = (x @ pi_w) / r_mean - pe * (r_i - r_mean) / r_mean
    k_i = k_i - 2 * (1 - alpha_prime) * (pe_i - pe) / (1 - pe)
    return _standard_error(k_i, alpha_prime)


# --------------------------------------------------------------------------------------------
# one dataset: every coefficient with its interval
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Coefficient:
    """One row of the coefficients mart."""

    coefficient: str
    weights: str
    interval: Interval
    std_error: float


def _weights_label(name: str) -> str:
    return "unweighted" if name == "identity" else name


def _statistic(data: Ratings, weights: dict[str, np.ndarray], levels: dict, values):  # noqa: C901 - one branch per coefficient, each its published formula
    """Item sums (:meth:`_Terms.unit_sums` or :meth:`_Terms.replicate_sums`) -> (R, columns)
    values of every coefficient; with the names and the terms."""
    r, q = data.n_raters, data.q
    names: list[tuple[str, str]] = []
    for wname in weights:
        label = _weights_label(wname)
        names += [("percent_agreement", label), ("fleiss_kappa", label),
                  ("brennan_prediger", label),
                  ("gwet_ac1" if wname == "identity" else "gwet_ac2", label)]  # fmt: skip
        if r >= 3:
            names += [("conger_kappa", label), ("light_kappa", label)]
        if r == 2:
            names += [("cohen_kappa", label), ("scott_pi", label)]
        if wname == "identity" and r == 2:
            names += [("pabak", label), ("bias_index", label), ("prevalence_index", label)]
    for level in levels:
        names.append(("krippendorff_alpha", KRIPPENDORFF_LEVELS[level]))
    n_pairs = r * (r - 1) // 2
    pair_names = [(f"pair_{m}", _weights_label(w)) for w in weights for m in
                  ("cohen_kappa", "percent_agreement")]  # fmt: skip

    terms = _Terms(data, weights)

    def statistic(first: dict[str, np.ndarray]) -> np.ndarray:
        columns, pair_columns = [], []
        for wname, w in weights.items():
            s = terms.for_weighting(first, wname)
            base = _count_based(s, w)
            columns += [base["percent_agreement"], base["fleiss_kappa"],
                        base["brennan_prediger"], base["gwet"]]  # fmt: skip
            pk = _pair_kappas(s, w, r, q, data.complete) if r >= 2 else {}
            if r >= 3:
                columns.append(_conger(s, w, r, q))
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # no defined pair: NaN
                    columns.append(np.nanmean(pk["cohen_kappa"], axis=1))
            if r == 2:
                columns += [pk["cohen_kappa"][:, 0], pk["scott_pi"][:, 0]]
            if wname == "identity" and r == 2:
                po = pk["percent_agreement_exact"][:, 0]
                columns.append((q * po - 1) / (q - 1) if q > 1 else np.full_like(po, np.nan))
                columns.append(pk["bias_index"][:, 0])
                if q == 2:  # Byrt et al. (1993): |a − d| / n on the 2 × 2 table
                    a_share = pk["marg_a"][:, 0, 0] + pk["marg_b"][:, 0, 0]
                    d_share = pk["marg_a"][:, 0, 1] + pk["marg_b"][:, 0, 1]
                    # a − d = (p_a1 + p_b1 − p_a2 − p_b2) / 2 over the items both rated
                    columns.append(np.abs(a_share - d_share) / 2)
                else:
                    columns.append(np.full_like(po, np.nan))
            if r >= 2:
                pair_columns += [pk["cohen_kappa"], pk["percent_agreement"]]
        for level in levels:
            r_rows = first["coinc"].shape[0]
            n_k = first["coinc"].reshape(r_rows, q, q) - first["self"][:, :, None] * np.eye(q)
            delta = krippendorff_distance(level, values, n_k.sum(axis=2))
            columns.append(_alpha(first, delta))
        out = np.column_stack(columns)
        if pair_columns:
            out = np.column_stack([out, *pair_columns])
        return out

    return statistic, names, pair_names, n_pairs, terms


def _prepare(codes, n_categories, weights, values):
    data = Ratings(codes, int(n_categories))
    q = data.q
    x = np.arange(1, q + 1, dtype=float) if values is None else np.asarray(values, dtype=float)
    ws = {"identity": weight_matrix("identity", q=q)}
    if weights != "identity":
        ws[weights] = weight_matrix(weights, x)
    levels = ["nominal"]
    if weights != "identity" and q >= 2:
        levels += ["ordinal", "interval"] + (["ratio"] if x[0] > 0 else [])
    return data, ws, levels, x


def point_estimates(
    codes: np.ndarray,
    n_categories: int,
    *,
    weights: str = "identity",
    values: np.ndarray | None = None,
) -> dict[tuple[str, str], float]:
    """Every coefficient of :func:`dataset_coefficients`, estimates only (no standard error,
    no bootstrap): {(coefficient, weights): estimate}.

    Parameters
    ----------
    codes, n_categories, weights, values
        As in :func:`dataset_coefficients`.

    Returns
    -------
    dict of (str, str) to float
        The estimate of each (coefficient, weights).

    Examples
    --------
    Two readers of 50 grant proposals (yes, yes) 20, (yes, no) 5, (no, yes) 10, (no, no)
    15: p_o = 0.7, p_e = 0.5, Cohen's kappa 0.4 (Wikipedia, "Cohen's kappa"):

    >>> two = np.repeat(np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), [20, 5, 10, 15], axis=0)
    >>> round(point_estimates(two, 2)[("cohen_kappa", "unweighted")], 3)
    0.4

    Krippendorff's (2011) reliability data, Gwet's (2014) ``raw_4raters``: 12 units, 4
    raters, values 1-5 ("." missing), one string per unit. Krippendorff (2011): nominal
    alpha 0.743, interval alpha 0.849 (reported under quadratic weights); irrCAC's
    documentation: Fleiss' kappa 0.76117, AC1 0.77544:

    >>> units = "11.1 2232 3333 3333 2222 1234 4444 1121 2222 .555 ..11 ..3."
    >>> codes = np.array([[int(v) - 1 if v != "." else -1 for v in u] for u in units.split()])
    >>> est = point_estimates(codes, 5, weights="quadratic")
    >>> round(est[("krippendorff_alpha", "unweighted")], 3)
    0.743
    >>> round(est[("krippendorff_alpha", "quadratic")], 3)
    0.849
    >>> round(est[("fleiss_kappa", "unweighted")], 5), round(est[("gwet_ac1", "unweighted")], 5)
    (0.76117, 0.77544)
    """
    data, ws, levels, x = _prepare(codes, n_categories, weights, values)
    statistic, names, _, _, terms = _statistic(data, ws, levels, x)
    row = statistic(terms.unit_sums())[0]
    return {name: float(value) for name, value in zip(names, row, strict=False)}


def dataset_coefficients(  # noqa: C901 - one pass over a dataset for every coefficient (the counts once)
    codes: np.ndarray,
    n_categories: int,
    *,
    weights: str = "identity",
    values: np.ndarray | None = None,
    n_resamples: int,
    confidence: float,
    seed: int,
) -> tuple[list[Coefficient], list[dict]]:
    """Every coefficient of one dataset, unweighted and with its declared ``weights``.

    ``codes``: items × raters, -1 missing, categories 0..q-1 in their declared order;
    ``values``: numeric category values for ordered weights and the interval and ratio
    levels (ranks 1..q when None). Krippendorff's alpha is given at the nominal level, and
    at the ordinal, interval and ratio levels when the dataset's weighting is not identity
    (its categories are ordered; ratio only with positive values). The bootstrap resamples
    items (one stream for every coefficient, seeded); ``n_resamples=0`` skips it (the
    intervals are NaN). Returns the coefficient rows and one dict per rater pair (Cohen's
    kappa, percent agreement, n_items, their intervals).

    Parameters
    ----------
    codes : array_like of int, shape (n_items, n_raters)
        Category codes 0..q-1, -1 missing.
    n_categories : int
        q, the number of declared categories.
    weights : str, default "identity"
        The declared weighting (one of :data:`WEIGHTS`).
    values : array_like, optional
        Numeric category values (ranks 1..q when None).
    n_resamples : int
        Bootstrap resamples over items; 0 skips the bootstrap.
    confidence : float
        Coverage of the percentile intervals.
    seed : int
        Seed of the stream.

    Returns
    -------
    rows : list of Coefficient
        One per coefficient and weighting.
    pairs : list of dict
        One per rater pair and measure.

    Examples
    --------
    Wikipedia's "Fleiss' kappa" worked example, 10 subjects rated by 14 raters into 5
    categories (counts per subject), published kappa 0.210:

    >>> counts = np.array([[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
    ...                    [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
    ...                    [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]])
    >>> codes = np.array([np.repeat(np.arange(5), subject) for subject in counts])
    >>> rows, pairs = dataset_coefficients(codes, 5, n_resamples=1000, confidence=0.95, seed=0)
    >>> fleiss = next(row for row in rows if row.coefficient == "fleiss_kappa")
    >>> ci = fleiss.interval
    >>> [round(float(v), 3) for v in (ci.estimate, ci.ci_low, ci.ci_high, fleiss.std_error)]
    [0.21, 0.047, 0.362, 0.092]
    >>> len(pairs)  # 91 rater pairs, Cohen's kappa and percent agreement each
    182
    """
    data, ws, levels, x = _prepare(codes, n_categories, weights, values)
    if data.n_items == 0:
        return [], []
    statistic, names, pair_names, n_pairs, terms = _statistic(data, ws, levels, x)
    sums = terms.unit_sums()
    estimate = statistic(sums)[0]
    if n_resamples:
        replicates = terms.replicate_sums(n_resamples, seed)
        # the statistic of a chunk of resamples at a time: at 40 raters its pair tables are
        # resamples × 780 pairs × q² cells, which the whole bootstrap would hold at once
        values = np.concatenate([
            statistic({k: v[lo : lo + STATISTIC_CHUNK] for k, v in replicates.items()})
            for lo in range(0, int(n_resamples), STATISTIC_CHUNK)
        ])  # fmt: skip
        interval = interval_of(estimate, values, confidence)
    else:  # estimates and standard errors only
        missing = np.full_like(estimate, np.nan)
        interval = Interval(estimate, missing, missing, missing, float(confidence), 0,
                            np.zeros(estimate.shape, dtype=np.int64))  # fmt: skip

    def part(i):
        return Interval(
            *(np.asarray(getattr(interval, f))[i] for f in ("estimate", "ci_low", "ci_high",
                                                           "boot_mean")),
            interval.confidence, interval.n_resamples, np.asarray(interval.n_undefined)[i],
        )  # fmt: skip

    rows: list[Coefficient] = []
    errors: dict[tuple[str, str], float] = {}
    for wname, w in ws.items():
        label = _weights_label(wname)
        gwet_name = "gwet_ac1" if wname == "identity" else "gwet_ac2"
        est = {
            key: float(np.asarray(interval.estimate)[names.index((name, label))])
            for key, name in (
                ("percent_agreement", "percent_agreement"),
                ("fleiss_kappa", "fleiss_kappa"),
                ("brennan_prediger", "brennan_prediger"),
                ("gwet", gwet_name),
            )
        }
        if data.n_raters >= 3:
            at = names.index(("conger_kappa", label))
            est["conger_kappa"] = float(np.asarray(interval.estimate)[at])
        se = standard_errors(data, w, est) if data.n_raters >= 2 else {}
        for key, name in (("percent_agreement", "percent_agreement"),
                          ("fleiss_kappa", "fleiss_kappa"),
                          ("brennan_prediger", "brennan_prediger"), ("gwet", gwet_name),
                          ("conger_kappa", "conger_kappa")):  # fmt: skip
            if key in se:
                errors[(name, label)] = se[key]
        if data.n_raters == 2:
            pair = Ratings(data.codes[(data.codes >= 0).all(axis=1)], data.q)
            if pair.n_items:
                errors.update(_pair_se(pair, w, interval, names, label))
    for i, (name, label) in enumerate(names):
        std_error = errors.get((name, label), np.nan)
        if name == "krippendorff_alpha":
            level = [lv for lv, lab in KRIPPENDORFF_LEVELS.items() if lab == label][0]
            std_error = _alpha_se(data, level, x, float(np.asarray(interval.estimate)[i]))
        rows.append(Coefficient(name, label, part(i), float(std_error)))

    pairs: list[dict] = []
    if data.n_raters >= 2:
        a, b = _pairs(data.n_raters)
        base = len(names)
        both = sums["both"][0]  # items each pair rated
        for j, (name, label) in enumerate(pair_names):
            for p in range(n_pairs):
                pairs.append({
                    "rater_a": int(a[p]), "rater_b": int(b[p]),
                    "measure": name.removeprefix("pair_"), "weights": label,
                    "n_items": int(both[p]),
                    "interval": part(base + j * n_pairs + p),
                })  # fmt: skip
    return rows, pairs


def _pair_se(pair: Ratings, w, interval, names, label) -> dict:
    """Standard errors of the two-rater coefficients over the items both rated: Cohen's
    kappa as Conger's (irrCAC), Scott's pi as Fleiss', PABAK as Brennan–Prediger."""
    r = pair.ratings_per_item
    pa_i = (pair.quadratic_forms(w) - r) / np.maximum(r * (r - 1), 1)
    two = _Terms(pair, {"identity": np.eye(pair.q), "w": w})
    sums = two.unit_sums()
    base = _count_based(two.for_weighting(sums, "w"), w)
    est = {k: float(v[0]) for k, v in base.items()}
    se = standard_errors(pair, w, est)
    out = {("scott_pi", label): se.get("fleiss_kappa", np.nan)}
    kappa = float(np.asarray(interval.estimate)[names.index(("cohen_kappa", label))])
    out[("cohen_kappa", label)] = _conger_se(pair, w, kappa, pa_i, r >= 2)
    if label == "unweighted":
        out[("pabak", label)] = se.get("brennan_prediger", np.nan)
    return out


def _alpha_se(data: Ratings, level: str, values, alpha: float) -> float:
    pairable = data.ratings_per_item >= 2
    n_k = data.category_totals if pairable.all() else data.counts[pairable].sum(0)
    delta = krippendorff_distance(level, values, n_k)
    if delta.max() <= 0:
        return np.nan
    return alpha_standard_error(data, 1 - delta / delta.max(), alpha)
