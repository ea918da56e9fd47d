"""Accuracy, calibration and cross-lingual consistency from option log-likelihoods.

Items are rows; an item's options are columns in the item's own option-key order (``A``,
``B``, …), never in the order they were presented. An item with fewer options than the
widest one has NaN log-likelihoods in the columns it lacks. Everything is vectorised over
items: one call per model, task, variant and language (or language pair), never a loop per
item.

References: lm-evaluation-harness (``acc``, its standard error ``mean_stderr``); Brier
(1950); Guo et al. (2017) for the expected calibration error; Qi, Fernández & Bisazza
(EMNLP 2023) for RankC; Lin (1991) for the Jensen–Shannon divergence; McNemar (1947) in its
exact (binomial) form; Holm (1979).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from concord_stats.bootstrap import bootstrap

N_CALIBRATION_BINS = 10


def option_probabilities(loglik: np.ndarray) -> np.ndarray:
    """Softmax of each item's summed log-likelihoods over the options it has.

    Parameters
    ----------
    loglik : array_like, shape (n_items, n_options)
        Summed token log-probabilities; NaN where an item lacks the option.

    Returns
    -------
    numpy.ndarray
        Probabilities, NaN where the item lacks the option (so an absent option is never
        taken for one of probability 0).

    Examples
    --------
    >>> option_probabilities(np.array([[0.0, 0.0], [np.log(3), 0.0]])).round(3).tolist()
    [[0.5, 0.5], [0.75, 0.25]]
    """
    x = np.asarray(loglik, dtype=float)
    present = ~np.isnan(x)
    top = np.where(present, x, -np.inf).max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        weights = np.where(present, np.exp(x - top), 0.0)
        return np.where(present, weights / weights.sum(axis=1, keepdims=True), np.nan)


def top_option(p: np.ndarray) -> np.ndarray:
    """The column of each item's most probable option, the first in key order on ties
    (lm-eval's ``acc`` takes the first maximum too); -1 for an item with no option.

    Examples
    --------
    >>> top_option(np.array([[0.4, 0.4, 0.2], [0.1, 0.3, 0.6]])).tolist()
    [0, 2]
    """
    p = np.asarray(p, dtype=float)
    filled = np.where(np.isnan(p), -np.inf, p)
    best = filled.argmax(axis=1)
    return np.where(np.isfinite(filled.max(axis=1)), best, -1)


def accuracy(correct: np.ndarray) -> tuple[float, float, int]:
    """Accuracy, its standard error and n, as the harness reports ``acc``.

    The standard error is the sample standard deviation (n − 1) over √n
    (``lm_eval.api.metrics.mean_stderr``); NaN for n < 2, and every figure NaN for n = 0.

    Examples
    --------
    >>> accuracy(np.array([True, False, True, True]))
    (0.75, 0.25, 4)
    """
    x = np.asarray(correct, dtype=float)
    n = x.size
    if n == 0:
        return float("nan"), float("nan"), 0
    se = float(x.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return float(x.mean()), se, n


def brier_score(p: np.ndarray, gold: np.ndarray) -> float:
    """Mean over items of Σ over options (p − y)², y the one-hot gold (range 0–2).

    Parameters
    ----------
    p : array_like, shape (n_items, n_options)
        Option probabilities (:func:`option_probabilities`).
    gold : array_like of int, shape (n_items,)
        The gold option's column.

    Examples
    --------
    >>> brier_score(np.array([[1.0, 0.0], [0.5, 0.5]]), np.array([0, 1]))
    0.25
    """
    p = np.nan_to_num(np.asarray(p, dtype=float))
    gold = np.asarray(gold)
    if gold.size == 0:
        return float("nan")
    y = np.zeros_like(p)
    y[np.arange(len(gold)), gold] = 1.0
    return float(((p - y) ** 2).sum(axis=1).mean())


def expected_calibration_error(
    p: np.ndarray, gold: np.ndarray, n_bins: int = N_CALIBRATION_BINS
) -> float:
    """ECE on the top option: equal-width bins (i/b, (i+1)/b], the first including 0,
    weighted by their counts: Σ_b (n_b / n) |accuracy_b − mean confidence_b|.

    Examples
    --------
    Two items at confidence 0.9, one right: |0.5 − 0.9| = 0.4.

    >>> expected_calibration_error(np.array([[0.9, 0.1], [0.9, 0.1]]), np.array([0, 1]))
    0.4
    """
    p = np.asarray(p, dtype=float)
    gold = np.asarray(gold)
    if gold.size == 0:
        return float("nan")
    confidence = np.nanmax(p, axis=1)
    correct = (top_option(p) == gold).astype(float)
    bins = np.clip(np.ceil(confidence * n_bins).astype(int) - 1, 0, n_bins - 1)
    return calibration_error_from_bins(
        np.bincount(bins, None, n_bins), np.bincount(bins, correct, n_bins),
        np.bincount(bins, confidence, n_bins),
    )  # fmt: skip


def calibration_error_from_bins(
    n_items: np.ndarray, n_correct: np.ndarray, confidence_sum: np.ndarray
) -> float:
    """The ECE from each bin's items, right answers and summed confidence (what the
    warehouse counts in SQL: int_mcq_calibration_binned): Σ_b |correct_b − confidence_b| / n.
    The bin of confidence c is ceil(c · b) − 1 clipped to [0, b − 1]: (i/b, (i+1)/b], 0 in
    the first.

    Examples
    --------
    >>> calibration_error_from_bins(np.array([2, 0]), np.array([1, 0]), np.array([1.8, 0]))
    0.4
    """
    n = float(np.sum(n_items))
    if n == 0:
        return float("nan")
    gap = np.asarray(n_correct, dtype=float) - np.asarray(confidence_sum, dtype=float)
    return float(np.abs(gap).sum() / n)


def rank_c(p1: np.ndarray, p2: np.ndarray) -> np.ndarray:
    """RankC per item (Qi, Fernández & Bisazza 2023) between two languages' option
    probabilities: Σⱼ wⱼ · |top-j(L1) ∩ top-j(L2)| / j over j = 1..N, with
    wⱼ = e^(N−j) / Σₖ e^(N−k) and N the item's number of options. Options are ranked by
    probability, ties broken by the item's option-key order (the column order), never by
    presented position.

    Parameters
    ----------
    p1, p2 : array_like, shape (n_items, n_options)
        Option probabilities of the two languages; NaN (or absent) where the item lacks the
        option, in both alike.

    Returns
    -------
    numpy.ndarray, shape (n_items,)
        RankC of each item, in [0, 1]; 1 when both rank the options alike.

    Examples
    --------
    The same order gives 1; two options swapped at the top leave only the full set shared
    at j = 1 and agree from j = 2 on:

    >>> rank_c(np.array([[0.6, 0.3, 0.1]]), np.array([[0.5, 0.4, 0.1]])).tolist()
    [1.0]
    >>> w = np.exp([2.0, 1.0, 0.0]) / np.exp([2.0, 1.0, 0.0]).sum()
    >>> bool(np.isclose(rank_c(np.array([[0.6, 0.3, 0.1]]), np.array([[0.3, 0.6, 0.1]]))[0],
    ...                 w[1] + w[2]))
    True
    """
    p1 = np.asarray(p1, dtype=float)
    p2 = np.asarray(p2, dtype=float)
    present = ~(np.isnan(p1) | np.isnan(p2))
    n_options = present.sum(axis=1)
    width = p1.shape[1]

    def ranks(p: np.ndarray) -> np.ndarray:
        # a stable sort on −p keeps key order among ties; absent options go last
        order = np.argsort(np.where(present, -p, np.inf), axis=1, kind="stable")
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(width)[None, :], axis=1)
        return rank

    # an option is in both top-j sets exactly when its worse rank of the two is below j
    worse = np.where(present, np.maximum(ranks(p1), ranks(p2)), width)
    counts = np.zeros((len(p1), width + 1))
    np.add.at(counts, (np.arange(len(p1))[:, None], worse), 1.0)
    overlap = np.cumsum(counts[:, :width], axis=1)  # |top-j ∩ top-j| for j = 1..width
    j = np.arange(1, width + 1)[None, :]
    within = j <= n_options[:, None]
    w = np.where(within, np.exp(n_options[:, None] - j), 0.0)
    with np.errstate(invalid="ignore"):
        w = w / w.sum(axis=1, keepdims=True)
        return np.where(n_options > 0, (w * overlap / j).sum(axis=1), np.nan)


def js_divergence(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Jensen–Shannon divergence, base 2, per item (0 ≤ JS ≤ 1): ½ KL(p‖m) + ½ KL(q‖m),
    m = (p + q) / 2, with 0 log 0 = 0. scipy's ``jensenshannon`` returns its square root.

    Examples
    --------
    >>> js_divergence(np.array([[1.0, 0.0], [0.5, 0.5]]), np.array([[0.0, 1.0], [0.5, 0.5]]))
    array([1., 0.])
    """
    p = np.nan_to_num(np.asarray(p, dtype=float))
    q = np.nan_to_num(np.asarray(q, dtype=float))
    m = (p + q) / 2

    def kl(a: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(a > 0, a * np.log2(a / m), 0.0)
        return terms.sum(axis=1)

    return 0.5 * kl(p) + 0.5 * kl(q)


def exact_mcnemar(only_first: int, only_second: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts (items only the first
    model got right, and only the second): 2 · P(X ≤ min) under Binomial(b + c, ½), capped
    at 1; 1 when there is no discordant item.

    Examples
    --------
    >>> round(exact_mcnemar(1, 9), 6)
    0.021484
    """
    total = only_first + only_second
    if total == 0:
        return 1.0
    return float(min(1.0, 2 * _binomial_at_most(min(only_first, only_second), total, 0.5)))


# The binomial tails from scipy.special's regularised incomplete beta (Boost's, as
# scipy.stats.binom uses: scipy.special.bdtr's cephes version is 6e-10 off at n = 10^6),
# not from scipy.stats, whose import costs about 1.9 s in every dbt build that uses it.
def _binomial_at_most(j: int, n: int, p: float) -> float:
    """P(X <= j) for X ~ Binomial(n, p)."""
    from scipy.special import betaincc

    return 0.0 if j < 0 else 1.0 if j >= n else float(betaincc(j + 1, n - j, p))


def _binomial_at_least(j: int, n: int, p: float) -> float:
    """P(X >= j) for X ~ Binomial(n, p)."""
    from scipy.special import betainc

    return 1.0 if j <= 0 else 0.0 if j > n else float(betainc(j, n - j + 1, p))


@dataclass(frozen=True)
class PairedShares:
    """Two models' shares of a 0/1 outcome on the same items, compared
    (:func:`paired_shares`)."""

    pct_a: float
    pct_b: float
    difference_pp: float
    ci_low: float
    ci_high: float
    p_value: float


def _difference_pp(counts: np.ndarray) -> np.ndarray:
    """The share of model a minus that of b, in points, from (only a, only b, the rest)."""
    counts = np.asarray(counts, dtype=float)
    return 100.0 * (counts[..., 0] - counts[..., 1]) / counts.sum(axis=-1)


def paired_shares(
    n_items: int,
    n_both: int,
    n_only_a: int,
    n_only_b: int,
    *,
    n_resamples: int,
    confidence: float,
    seed: int,
) -> PairedShares:
    """Two models scored 0/1 (full agreement, a correct answer) on the same ``n_items``
    items, from their 2 × 2 table (``n_both`` items a success for both, ``n_only_a`` for a
    alone, ``n_only_b`` for b alone): each share in %, the difference a − b in points with a
    paired percentile bootstrap interval, and the exact McNemar p-value of the discordant
    items (:func:`exact_mcnemar`).

    Resampling items together for both models changes the difference only through the
    table, so a resample is the table drawn from Multinomial(n, table / n)
    (:func:`concord_stats.bootstrap.bootstrap`; docs/formulas.md, the bootstrap).

    Examples
    --------
    >>> r = paired_shares(10, 5, 3, 1, n_resamples=200, confidence=0.95, seed=1)
    >>> r.pct_a, r.pct_b, r.difference_pp, round(r.p_value, 4)
    (80.0, 60.0, 20.0, 0.625)
    """
    difference = bootstrap(
        np.array([n_only_a, n_only_b, n_items - n_only_a - n_only_b]),
        _difference_pp,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
    )
    return PairedShares(
        pct_a=100.0 * (n_both + n_only_a) / n_items,
        pct_b=100.0 * (n_both + n_only_b) / n_items,
        difference_pp=float(difference.estimate),
        ci_low=float(difference.ci_low),
        ci_high=float(difference.ci_high),
        p_value=exact_mcnemar(n_only_a, n_only_b),
    )


def exact_binomial_test(successes: int, n: int, p: float) -> float:
    """Two-sided exact binomial p-value of ``successes`` in ``n`` under Binomial(n, p): the
    probability of every count no more likely than the one seen (scipy's ``binomtest``); 1
    when n is 0.

    Examples
    --------
    >>> round(exact_binomial_test(9, 10, 0.5), 6)
    0.021484
    """
    # Not scipy.stats.binomtest: importing scipy.stats costs about 1.9 s in every dbt build
    # of the cross-lingual selection (python -X importtime). The outcomes no more likely
    # than k are the two tails of the unimodal pmf: k's own side up to k, and on the other
    # side every outcome from where the pmf falls to P(X = k) · (1 + 1e-7) (binomtest's
    # relative tolerance for ties), found by bisection.
    from scipy.special import gammaln, xlog1py, xlogy

    k, n, p = int(successes), int(n), float(min(max(p, 0.0), 1.0))
    if n == 0 or k == p * n:
        return 1.0
    if p in (0.0, 1.0):  # one certain outcome: it, or nothing as likely as k
        return 1.0 if k == round(p * n) else 0.0

    def log_pmf(j: int) -> float:
        return float(
            gammaln(n + 1) - gammaln(j + 1) - gammaln(n - j + 1) + xlogy(j, p) + xlog1py(n - j, -p)
        )

    threshold = log_pmf(k) + math.log1p(1e-7)
    if k < p * n:  # the far tail is above the mode, where the pmf falls: its first outcome
        lo, hi = math.ceil(p * n), n + 1
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if log_pmf(mid) <= threshold else (mid + 1, hi)
        return min(1.0, _binomial_at_most(k, n, p) + _binomial_at_least(lo, n, p))
    lo, hi = -1, math.floor(p * n)  # below the mode the pmf rises: the tail's last outcome
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if log_pmf(mid) <= threshold else (lo, mid - 1)
    return min(1.0, _binomial_at_most(lo, n, p) + _binomial_at_least(k, n, p))


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error), in the input's order; NaN
    p-values stay NaN and do not count towards the family.

    Examples
    --------
    >>> holm(np.array([0.01, 0.04, 0.03])).round(2).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full_like(p, np.nan)
    usable = np.flatnonzero(~np.isnan(p))
    m = usable.size
    if m == 0:
        return out
    order = usable[np.argsort(p[usable], kind="stable")]
    stepped = np.maximum.accumulate(p[order] * (m - np.arange(m)))
    out[order] = np.minimum(stepped, 1.0)
    return out


def normal_interval(mean, std_dev, n, confidence: float):
    """From a mean, the sample standard deviation and n (scalars or arrays): the standard
    error sd / √n and the normal-approximation interval mean ± z · SE; NaN where n < 2.
    What SQL hands over as a pair's moments, and what :func:`mean_interval` computes.

    Examples
    --------
    >>> [round(float(v), 4) for v in normal_interval(0.75, 0.5, 4, 0.95)]
    [0.25, 0.26, 1.24]
    """
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.where(n > 1, np.asarray(std_dev, dtype=float) / np.sqrt(n), np.nan)
    half = NormalDist().inv_cdf((1 + confidence) / 2) * se
    return se, mean - half, mean + half


def mean_interval(values: np.ndarray, confidence: float) -> tuple[float, float, float, float, int]:
    """Mean, its standard error (sample sd / √n), a normal-approximation interval
    mean ± z · SE, and n: the default interval of the per-item figures.

    Examples
    --------
    >>> [round(v, 4) for v in mean_interval(np.array([1.0, 0.0, 1.0, 1.0]), 0.95)[:4]]
    [0.75, 0.25, 0.26, 1.24]
    """
    x = np.asarray(values, dtype=float)
    n = x.size
    if n == 0:
        return float("nan"), float("nan"), float("nan"), float("nan"), 0
    mean = float(x.mean())
    sd = float(x.std(ddof=1)) if n > 1 else float("nan")
    se, low, high = normal_interval(mean, sd, n, confidence)
    return mean, float(se), float(low), float(high), n


def cohen_kappa_tables(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cohen's kappa and irrCAC's standard error for many pairs of raters at once, from
    their contingency tables: the sufficient statistics, so a pair of languages over a
    million items costs a K × K table, not a million labels.

    Two raters rating every item are irrCAC's ``conger.kappa.raw`` with r = 2 (the rater
    study's :func:`cohen_kappa`): with p, q the two raters' category shares, chance
    agreement is pe = Σ_k p_k q_k, and an item rated (k, l) has the linearised term
    κ_kl = ([k = l] − pe) / (1 − pe) − 2 (1 − κ) ((q_k + p_l) / 2 − pe) / (1 − pe), so
    SE² = Σ_kl n_kl (κ_kl − κ)² / (n (n − 1)).

    Parameters
    ----------
    tables : numpy.ndarray, shape (pairs, K, K)
        Counts of items rated k by the first rater and l by the second.

    Returns
    -------
    kappa, std_error : numpy.ndarray, shape (pairs,)
        NaN where chance agreement is 1 (and the error where n < 2).

    Examples
    --------
    >>> table = np.array([[[2, 0, 0], [0, 2, 0], [1, 0, 1]]])
    >>> kappa, se = cohen_kappa_tables(table)
    >>> round(float(kappa[0]), 4)
    0.75
    """
    t = np.asarray(tables, dtype=float)
    n = t.sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = t.sum(axis=2) / n[:, None]  # the first rater's shares
        q = t.sum(axis=1) / n[:, None]  # the second's
        po = np.trace(t, axis1=1, axis2=2) / n
        pe = (p * q).sum(axis=1)
        defined = np.abs(1 - pe) > 1e-12
        kappa = np.where(defined, (po - pe) / np.where(defined, 1 - pe, 1), np.nan)
        k = t.shape[1]
        agree = np.eye(k)[None, :, :]
        pe_cell = (q[:, :, None] + p[:, None, :]) / 2  # (pairs, k, l): (q_k + p_l) / 2
        scale = np.where(defined, 1 - pe, 1)[:, None, None]
        terms = (agree - pe[:, None, None]) / scale - 2 * (1 - kappa)[:, None, None] * (
            pe_cell - pe[:, None, None]
        ) / scale
        spread = (t * (terms - kappa[:, None, None]) ** 2).sum(axis=(1, 2))
        se = np.where((n >= 2) & defined, np.sqrt(spread / (n * (n - 1))), np.nan)
    return kappa, se


def cohen_kappa(first: np.ndarray, second: np.ndarray) -> tuple[float, float]:
    """Cohen's kappa of two raters' labels on the same items, and irrCAC's standard error
    (through :func:`concord_stats.rater_coefficients.dataset_coefficients`, the rater
    study's, checked against irrCAC); NaN where chance agreement is 1.

    Examples
    --------
    >>> k, se = cohen_kappa(np.array(list("AABBCC")), np.array(list("AABBCA")))
    >>> round(k, 4)
    0.75
    """
    from concord_stats.rater_coefficients import dataset_coefficients

    first, second = np.asarray(first), np.asarray(second)
    labels = np.unique(np.concatenate([first, second]))
    if first.size == 0:
        return float("nan"), float("nan")
    codes = np.stack([np.searchsorted(labels, first), np.searchsorted(labels, second)], axis=1)
    rows, _ = dataset_coefficients(
        codes, max(len(labels), 2), n_resamples=0, confidence=0.95, seed=0
    )
    row = next(r for r in rows if r.coefficient == "cohen_kappa" and r.weights == "unweighted")
    return float(row.interval.estimate), float(row.std_error)


def ratio_sums(numerators: np.ndarray, denominators: np.ndarray) -> tuple[int | float, ...]:
    """The sufficient statistics of :func:`ratio_interval` from each cluster's a_i and m_i:
    n, Σ a, Σ m, Σ a², Σ a·m, Σ m² (Python ints for whole numbers: exact).

    Examples
    --------
    >>> ratio_sums(np.array([2, 0, 3]), np.array([3, 1, 3]))
    (3, 5, 7, 13, 15, 19)
    """
    a = np.asarray(numerators)
    m = np.asarray(denominators)
    exact = np.issubdtype(a.dtype, np.integer) and np.issubdtype(m.dtype, np.integer)
    a, m = (a.astype(object), m.astype(object)) if exact else (a.astype(float), m.astype(float))
    total = sum if exact else math.fsum
    return a.size, total(a), total(m), total(a * a), total(a * m), total(m * m)


def ratio_interval(
    n: int,
    sum_a: float,
    sum_m: float,
    sum_aa: float,
    sum_am: float,
    sum_mm: float,
    confidence: float,
) -> tuple[float, float, float, float, int]:
    """A share pooled over n clusters (an item's languages): R = Σ a_i / Σ m_i, its standard
    error linearised with the cluster as the unit, SE² = n/(n − 1) · Σ (a_i − R m_i)² /
    (Σ m_i)², a normal-approximation interval clipped to [0, 1], and n; from the sums
    (:func:`ratio_sums`, or SQL's: int_mcq_graded_items_summed), since
    Σ (a_i − R m_i)² · (Σ m)² = Σa² (Σm)² − 2 Σa Σam Σm + (Σa)² Σm², exact in whole numbers.
    An item's answers in its languages are not independent draws; the item is (as the mean
    pairwise agreement's interval takes it). With one answer per item this is the harness's
    standard error, √(R(1 − R)/(n − 1)).

    Examples
    --------
    >>> sums = ratio_sums(np.array([1, 0, 1, 1]), np.ones(4, dtype=int))
    >>> [round(v, 4) for v in ratio_interval(*sums, 0.95)[:4]]
    [0.75, 0.25, 0.26, 1.0]
    """
    if n == 0 or sum_m == 0:
        return float("nan"), float("nan"), float("nan"), float("nan"), n
    ratio = sum_a / sum_m
    spread = sum_aa * sum_m * sum_m - 2 * sum_a * sum_am * sum_m + sum_a * sum_a * sum_mm
    se = math.sqrt(n / (n - 1) * max(spread, 0)) / (sum_m * sum_m) if n > 1 else math.nan
    half = NormalDist().inv_cdf((1 + confidence) / 2) * se
    return ratio, se, max(0.0, ratio - half), min(1.0, ratio + half), n
