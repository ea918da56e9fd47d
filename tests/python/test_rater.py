"""concord_stats.rater and macros/rater_measures.sql against independent implementations.

Peers: scipy.stats.entropy, statsmodels fleiss_kappa (both methods) and aggregate_raters,
krippendorff.alpha(level_of_measurement='nominal'), nltk AnnotationTask (pi, S, alpha), the
published examples (Fleiss 1971: κ = 0.430 and per-category kappas; the 10 subjects × 14
raters × 5 categories example: κ = 0.210), brute-force pairwise counts written here from the
definitions, and the identities GD = 1 − Pi = Simpson, DI = GD · K (n − 1) / ((K − 1) n).
"""

from __future__ import annotations

import itertools
import math
import re

import duckdb
import jinja2
import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from nltk.metrics.agreement import AnnotationTask
from scipy.stats import entropy as scipy_entropy
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from concord_io.paths import PROJECT_ROOT as ROOT
from concord_stats import rater

TOL = 1e-9

# The reference document's eight rating sets (6 raters, 4 categories A-D).
PATTERNS = ["AAAAAA", "AAAAAB", "AAAABB", "AAAABC", "AAABBB", "AABBCC", "AAABCD", "AABBCD"]
REFERENCE_COUNTS = np.array([[p.count(c) for c in "ABCD"] for p in PATTERNS])

# Fleiss (1971), Table 1: 30 patients, 6 psychiatrists, 5 diagnoses (1 depression,
# 2 personality disorder, 3 schizophrenia, 4 neurosis, 5 other), as in statsmodels' tests.
FLEISS_1971 = np.array(
    [
        [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5],
        [2, 2, 2, 4, 4, 4], [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4],
        [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5], [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4],
        [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5], [3, 3, 3, 3, 3, 5],
        [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
        [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4],
        [1, 4, 4, 4, 4, 5], [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5],
    ]
)  # fmt: skip

# 10 subjects x 14 raters x 5 categories (Wikipedia "Fleiss' kappa" worked example).
WIKIPEDIA_14_RATERS = np.array(
    [
        [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
    ]
)  # fmt: skip


# ------------------------------------------------------------------------------------------
# independent helpers (written from the definitions, not from the library)
# ------------------------------------------------------------------------------------------
def ratings_from_counts(counts_row):
    """One rater per rating: [0, 0, 1, ...] from counts [2, 1, ...]."""
    return [j for j, c in enumerate(counts_row) for _ in range(int(c))]


def pairwise_agreement(labels):
    """Share of ordered pairs of distinct raters who agree (brute force)."""
    pairs = list(itertools.permutations(range(len(labels)), 2))
    return sum(labels[a] == labels[b] for a, b in pairs) / len(pairs)


def whitworth_gd(labels):
    """Whitworth's GD from the disagreement matrix: mean over raters of d_i / (n - 1)."""
    n = len(labels)
    d = [sum(labels[i] != labels[j] for j in range(n)) / (n - 1) for i in range(n)]
    return sum(d) / n


def fleiss_kappa_pairs(items):
    """Fleiss' kappa from raw labels, allowing unequal raters: mean pairwise agreement of the
    items with >= 2 labels vs. squared pooled shares of their labels."""
    items = [labels for labels in items if len(labels) >= 2]
    p_bar = np.mean([pairwise_agreement(labels) for labels in items])
    pooled = [label for labels in items for label in labels]
    shares = np.array([pooled.count(c) for c in set(pooled)]) / len(pooled)
    p_e = float((shares**2).sum())
    return (p_bar - p_e) / (1 - p_e)


def nltk_task(items):
    """AnnotationTask from a list of label lists (rater index = position)."""
    data = [
        (f"r{r}", f"i{i}", label)
        for i, labels in enumerate(items)
        for r, label in enumerate(labels)
    ]
    return AnnotationTask(data=data)


def counts_from_items(items, k):
    return np.array([[labels.count(j) for j in range(k)] for labels in items])


# ------------------------------------------------------------------------------------------
# per-item measures
# ------------------------------------------------------------------------------------------
def test_reference_examples_against_definitions():
    m = rater.item_measures(REFERENCE_COUNTS, 4)
    for i, pattern in enumerate(PATTERNS):
        labels = list(pattern)
        n = len(labels)
        shares = np.array([labels.count(c) / n for c in "ABCD"])
        assert m["n_raters"][i] == 6
        assert m["n_categories_used"][i] == len(set(labels))
        assert m["fleiss_pi"][i] == pytest.approx(pairwise_agreement(labels), abs=TOL)
        assert m["group_disagreement"][i] == pytest.approx(whitworth_gd(labels), abs=TOL)
        h = scipy_entropy(shares)
        assert m["entropy_nats"][i] == pytest.approx(h, abs=TOL)
        assert m["entropy_bits"][i] == pytest.approx(scipy_entropy(shares, base=2), abs=TOL)
        assert m["entropy_norm_k"][i] == pytest.approx(h / math.log(4), abs=TOL)
        assert m["entropy_norm_n"][i] == pytest.approx(h / math.log(6), abs=TOL)
        assert m["gini_simpson"][i] == pytest.approx(1 - (shares**2).sum(), abs=TOL)
        assert m["null_reason"][i] is None


def test_reference_examples_published_values():
    # Walker's DI for AABBCD: 4 (36 - 10) / (3 * 36) = 104/108; GD for AAAAAB: 10/30.
    m = rater.item_measures(REFERENCE_COUNTS, 4)
    assert m["dispersion_index"][0] == 0
    assert m["dispersion_index"][7] == pytest.approx(104 / 108, abs=TOL)
    assert m["group_disagreement"][1] == pytest.approx(10 / 30, abs=TOL)
    assert m["group_disagreement"][7] == pytest.approx(26 / 30, abs=TOL)


@pytest.mark.parametrize("counts", [REFERENCE_COUNTS, WIKIPEDIA_14_RATERS])
def test_identities(counts):
    k = counts.shape[1]
    m = rater.item_measures(counts, k)
    n = m["n_raters"]
    np.testing.assert_allclose(m["group_disagreement"], 1 - m["fleiss_pi"], atol=TOL)
    np.testing.assert_allclose(m["simpson_index"], m["group_disagreement"], atol=TOL)
    np.testing.assert_allclose(m["one_minus_pi"], m["group_disagreement"], atol=TOL)
    np.testing.assert_allclose(
        m["dispersion_index"], m["group_disagreement"] * k * (n - 1) / ((k - 1) * n), atol=TOL
    )
    np.testing.assert_allclose(m["gini_simpson"], (n - 1) / n * m["group_disagreement"], atol=TOL)


def test_declared_k_is_not_observed_k():
    # Two categories used of four declared: DI and H/ln K use K = 4.
    counts = np.array([[3, 3]])
    di4 = rater.dispersion_index(counts, 4)[0]
    assert di4 == pytest.approx(4 * (36 - 18) / (3 * 36), abs=TOL)
    assert rater.dispersion_index(counts)[0] == pytest.approx(1.0, abs=TOL)
    m = rater.item_measures(counts, 4)
    assert m["entropy_norm_k"][0] == pytest.approx(math.log(2) / math.log(4), abs=TOL)
    with pytest.raises(ValueError, match="declared"):
        rater.item_measures(np.ones((2, 5)), 4)


def test_edge_cases():
    # one rater, all agree, every rater different, no ratings, one declared category
    counts = np.array([[1, 0, 0], [4, 0, 0], [1, 1, 1], [0, 0, 0]])
    m = rater.item_measures(counts, 3)
    assert np.isnan(m["fleiss_pi"][0]) and np.isnan(m["group_disagreement"][0])
    assert np.isnan(m["simpson_index"][0]) and np.isnan(m["entropy_norm_n"][0])
    assert m["dispersion_index"][0] == 0 and m["entropy_nats"][0] == 0
    assert m["gini_simpson"][0] == 0
    assert m["null_reason"][0] == rater.REASON_ONE_RATER
    assert m["fleiss_pi"][1] == 1 and m["dispersion_index"][1] == 0
    assert m["entropy_bits"][1] == 0 and m["null_reason"][1] is None
    # every rater different with n = K: every measure at its maximum
    for name in ("dispersion_index", "group_disagreement", "entropy_norm_k", "entropy_norm_n"):
        assert m[name][2] == pytest.approx(1.0, abs=TOL)
    assert m["fleiss_pi"][2] == 0
    assert all(np.isnan(m[name][3]) for name in ("dispersion_index", "entropy_nats", "fleiss_pi"))
    assert m["null_reason"][3] == rater.REASON_NO_RATINGS

    one_category = rater.item_measures(np.array([[5], [1]]), 1)
    assert np.isnan(one_category["dispersion_index"]).all()
    assert np.isnan(one_category["entropy_norm_k"]).all()
    assert one_category["fleiss_pi"][0] == 1
    assert one_category["null_reason"][0] == rater.REASON_ONE_CATEGORY
    both = rater.REASON_ONE_RATER + "; " + rater.REASON_ONE_CATEGORY
    assert one_category["null_reason"][1] == both


def test_single_item_and_float_counts():
    one = rater.item_measures(np.array([4, 2, 0, 0]), 4)
    batch = rater.item_measures(np.array([[4, 2, 0, 0]]), 4)
    for name in rater.ITEM_MEASURES[:-1]:
        assert np.ndim(one[name]) == 0
        assert one[name] == pytest.approx(batch[name][0], abs=TOL)
    as_float = rater.item_measures(REFERENCE_COUNTS.astype(float), 4)
    as_int = rater.item_measures(REFERENCE_COUNTS, 4)
    for name in rater.ITEM_MEASURES[:-1]:
        np.testing.assert_allclose(as_float[name], as_int[name], atol=TOL)


def test_malformed_counts_raise():
    for bad in (np.array([[1, -1]]), np.array([[np.nan, 1]]), np.zeros((2, 0))):
        with pytest.raises(ValueError):
            rater.item_measures(bad)


def test_category_counts_matches_statsmodels():
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 5, size=(50, 7))
    table, _ = aggregate_raters(codes, n_cat=5)
    np.testing.assert_array_equal(rater.category_counts(codes, 5), table)
    with_missing = codes.copy()
    with_missing[0, :3] = -1
    assert rater.category_counts(with_missing, 5)[0].sum() == 4
    with pytest.raises(ValueError):
        rater.category_counts(codes, 4)


# ------------------------------------------------------------------------------------------
# kappa, alpha
# ------------------------------------------------------------------------------------------
def test_fleiss_1971_published():
    table, _ = aggregate_raters(FLEISS_1971)
    assert rater.fleiss_kappa(table) == pytest.approx(0.4302445, abs=5e-8)  # irr kappam.fleiss
    assert round(float(rater.fleiss_kappa(table)), 3) == 0.430
    # Fleiss (1971), per-category kappas: .245 .245 .520 .471 .566
    np.testing.assert_allclose(
        rater.fleiss_category_kappa(table), [0.245, 0.245, 0.520, 0.471, 0.566], atol=5e-4
    )


def test_wikipedia_published():
    assert round(float(rater.fleiss_kappa(WIKIPEDIA_14_RATERS)), 3) == 0.210


@pytest.mark.parametrize("seed", range(5))
def test_kappas_match_statsmodels(seed):
    rng = np.random.default_rng(seed)
    n_items, n_raters, k = rng.integers(5, 40), rng.integers(2, 9), rng.integers(2, 7)
    codes = rng.integers(0, k, size=(n_items, n_raters))
    table, _ = aggregate_raters(codes, n_cat=k)
    assert rater.fleiss_kappa(table) == pytest.approx(sm_fleiss_kappa(table, "fleiss"), abs=TOL)
    assert rater.randolph_kappa(table) == pytest.approx(sm_fleiss_kappa(table, "randolph"), abs=TOL)
    # declared K beyond the observed columns: statsmodels sees it as a zero column
    padded = np.column_stack([table, np.zeros(n_items)])
    assert rater.randolph_kappa(table, k + 1) == pytest.approx(
        sm_fleiss_kappa(padded, "randolph"), abs=TOL
    )
    assert rater.fleiss_kappa(padded) == pytest.approx(sm_fleiss_kappa(padded), abs=TOL)
    # per-category kappa = Fleiss' kappa of the (j, not j) table
    for j in range(k):
        binary = np.column_stack([table[:, j], table.sum(1) - table[:, j]])
        if 0 < binary[:, 0].sum() < binary.sum():
            assert rater.fleiss_category_kappa(table)[j] == pytest.approx(
                sm_fleiss_kappa(binary), abs=TOL
            )


@pytest.mark.parametrize("seed", range(5))
def test_against_nltk_and_krippendorff(seed):
    rng = np.random.default_rng(100 + seed)
    k = int(rng.integers(2, 5))
    items = [list(rng.integers(0, k, size=5)) for _ in range(15)]
    items[0] = list(range(k)) + [0] * (5 - k)  # every category occurs (nltk's S counts seen labels)
    counts = counts_from_items(items, k)
    task = nltk_task(items)
    assert rater.fleiss_kappa(counts) == pytest.approx(task.pi(), abs=TOL)
    assert rater.randolph_kappa(counts, k) == pytest.approx(task.S(), abs=TOL)
    alpha = rater.krippendorff_alpha_nominal(counts)
    assert alpha == pytest.approx(task.alpha(), abs=TOL)
    assert alpha == pytest.approx(
        krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"), abs=TOL
    )


def test_unequal_raters():
    rng = np.random.default_rng(7)
    k = 4
    items = [list(rng.integers(0, k, size=rng.integers(1, 7))) for _ in range(40)]
    counts = counts_from_items(items, k)
    assert rater.fleiss_kappa(counts) == pytest.approx(fleiss_kappa_pairs(items), abs=TOL)
    # Krippendorff with missing ratings: reliability data, raters x units, NaN where missing
    reliability = np.full((6, len(items)), np.nan)
    for i, labels in enumerate(items):
        reliability[: len(labels), i] = labels
    assert rater.krippendorff_alpha_nominal(counts) == pytest.approx(
        krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal"), abs=TOL
    )
    # the per-item measures of a 1-rater item are null, its neighbours are not
    m = rater.item_measures(counts, k)
    single = counts.sum(1) == 1
    assert single.any() and np.isnan(m["fleiss_pi"][single]).all()
    assert not np.isnan(m["fleiss_pi"][~single]).any()


def test_kappa_degenerate():
    assert np.isnan(rater.fleiss_kappa(np.array([[3, 0], [2, 0]])))  # P_e = 1
    assert np.isnan(rater.krippendorff_alpha_nominal(np.array([[3, 0], [2, 0]])))
    assert np.isnan(rater.fleiss_kappa(np.array([[1, 0], [0, 1]])))  # no pairs
    assert np.isnan(rater.randolph_kappa(np.array([[3], [2]])))  # K = 1
    assert rater.fleiss_kappa(np.array([[3, 0], [0, 3]])) == 1  # perfect agreement
    summary = rater.agreement_summary(np.array([[3, 0], [2, 0]]), 2, 50, 0.95, 1)
    assert summary["null_reason"] == rater.REASON_ONE_CATEGORY_USED
    assert np.isnan(summary["fleiss_kappa_ci_low"])
    assert summary["bootstrap_undefined_resamples"] == 50
    kappas = rater.category_kappas(np.array([[3, 0, 0], [1, 2, 0]]))
    assert list(kappas["null_reason"]) == [None, None, rater.REASON_CATEGORY_NEVER]


def test_vectorised_over_leading_axis():
    stack = np.stack([REFERENCE_COUNTS, REFERENCE_COUNTS[::-1], WIKIPEDIA_14_RATERS[:8, :4]])
    np.testing.assert_allclose(
        rater.fleiss_kappa(stack), [rater.fleiss_kappa(c) for c in stack], atol=TOL
    )
    np.testing.assert_allclose(
        rater.krippendorff_alpha_nominal(stack),
        [rater.krippendorff_alpha_nominal(c) for c in stack],
        atol=TOL,
    )


# ------------------------------------------------------------------------------------------
# bootstrap
# ------------------------------------------------------------------------------------------
def test_bootstrap_matches_explicit_resampling():
    table, _ = aggregate_raters(FLEISS_1971)
    result = rater.bootstrap_fleiss_kappa(table, 400, 0.9, seed=11)
    assert result.estimate == pytest.approx(sm_fleiss_kappa(table), abs=TOL)
    idx = np.random.default_rng(11).integers(0, len(table), size=(400, len(table)))
    replicates = np.array([sm_fleiss_kappa(table[row]) for row in idx])
    assert result.ci_low == pytest.approx(np.quantile(replicates, 0.05), abs=TOL)
    assert result.ci_high == pytest.approx(np.quantile(replicates, 0.95), abs=TOL)
    assert result.ci_low < result.estimate < result.ci_high
    # seeded; chunking does not change the numbers
    assert rater.bootstrap_fleiss_kappa(table, 400, 0.9, seed=11, max_cells=100) == result
    assert rater.bootstrap_fleiss_kappa(table, 400, 0.9, seed=12) != result


# ------------------------------------------------------------------------------------------
# property tests
# ------------------------------------------------------------------------------------------
count_matrices = hnp.arrays(
    np.int64,
    shape=st.tuples(st.integers(1, 12), st.integers(2, 6)),
    elements=st.integers(0, 9),
)


@settings(max_examples=60, deadline=None)
@given(count_matrices)
def test_bounds(counts):
    k = counts.shape[1]
    m = rater.item_measures(counts, k)
    for name in (
        "dispersion_index", "fleiss_pi", "group_disagreement", "simpson_index",
        "gini_simpson", "entropy_norm_k", "entropy_norm_n",
    ):  # fmt: skip
        values = m[name][~np.isnan(m[name])]
        assert ((values >= -TOL) & (values <= 1 + TOL)).all(), name
    h = m["entropy_nats"][~np.isnan(m["entropy_nats"])]
    assert (h <= math.log(k) + TOL).all()  # entropy maximum ln K
    # randolph >= -1/(K-1) since P̄ >= 0; every coefficient <= 1
    randolph = rater.randolph_kappa(counts)
    assert np.isnan(randolph) or -1 / (k - 1) - TOL <= randolph <= 1 + TOL
    for value in (rater.fleiss_kappa(counts), rater.krippendorff_alpha_nominal(counts)):
        assert np.isnan(value) or value <= 1 + TOL


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(
        np.int64,
        shape=st.tuples(st.integers(1, 15), st.integers(2, 8)),
        elements=st.integers(0, 4),
    )
)
def test_equal_raters_bound_and_statsmodels(codes):
    # n raters on every item: -1/(n-1) <= kappa <= 1 (Fleiss 1971), and kappa is statsmodels'
    counts = rater.category_counts(codes, 5)
    kappa = rater.fleiss_kappa(counts)
    n = codes.shape[1]
    if np.isnan(kappa):
        assert (counts.sum(axis=0) > 0).sum() == 1  # only when every rating is in one category
        return
    assert -1 / (n - 1) - TOL <= kappa <= 1 + TOL
    assert kappa == pytest.approx(sm_fleiss_kappa(counts), abs=TOL)


@settings(max_examples=60, deadline=None)
@given(count_matrices, st.randoms(use_true_random=False))
def test_invariant_under_relabelling_and_reordering(counts, rnd):
    k = counts.shape[1]
    perm = list(range(k))
    rnd.shuffle(perm)
    relabelled = counts[:, perm]
    m0, m1 = rater.item_measures(counts, k), rater.item_measures(relabelled, k)
    for name in rater.ITEM_MEASURES[:-1]:
        np.testing.assert_allclose(m0[name], m1[name], atol=TOL, equal_nan=True)
    order = list(range(len(counts)))
    rnd.shuffle(order)
    for f in (rater.fleiss_kappa, rater.randolph_kappa, rater.krippendorff_alpha_nominal):
        np.testing.assert_allclose(f(relabelled), f(counts), atol=TOL, equal_nan=True)
        np.testing.assert_allclose(f(counts[order]), f(counts), atol=TOL, equal_nan=True)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 3), min_size=2, max_size=6), min_size=2, max_size=10),
    st.randoms(use_true_random=False),
)
def test_rater_order_does_not_matter(items, rnd):
    # counts forget which rater said what; kappa from raw labels (brute force) agrees
    shuffled = [rnd.sample(labels, len(labels)) for labels in items]
    counts = counts_from_items(shuffled, 4)
    expected = fleiss_kappa_pairs(items) if len({x for i in items for x in i}) > 1 else np.nan
    np.testing.assert_allclose(rater.fleiss_kappa(counts), expected, atol=TOL, equal_nan=True)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(2, 8), st.integers(1, 10))
def test_perfect_agreement_and_entropy_maximum(k, n_raters, n_items):
    labels = np.arange(n_items) % k
    counts = np.zeros((n_items, k), dtype=int)
    counts[np.arange(n_items), labels] = n_raters
    if len(set(labels)) > 1:
        assert rater.fleiss_kappa(counts) == pytest.approx(1.0, abs=TOL)
        assert rater.krippendorff_alpha_nominal(counts) == pytest.approx(1.0, abs=TOL)
    assert rater.randolph_kappa(counts) == pytest.approx(1.0, abs=TOL)
    even = np.full((1, k), n_raters)
    m = rater.item_measures(even, k)
    assert m["entropy_norm_k"][0] == pytest.approx(1.0, abs=TOL)
    assert m["dispersion_index"][0] == pytest.approx(1.0, abs=TOL)


# ------------------------------------------------------------------------------------------
# the SQL macros give the same numbers (rendered with plain Jinja, run in DuckDB)
# ------------------------------------------------------------------------------------------
class _Adapter:
    """Enough of dbt's adapter.dispatch for the macros: duckdb__ then default__."""

    module = None

    def dispatch(self, name, macro_namespace=None):
        return getattr(self.module, f"duckdb__{name}", None) or getattr(
            self.module, f"default__{name}"
        )


def render_macros():
    source = (ROOT / "macros" / "rater_measures.sql").read_text()
    adapter = _Adapter()
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    env.globals["adapter"] = adapter
    env.globals["return"] = lambda value: value
    module = env.from_string(source).module
    adapter.module = module
    return module


def sql_item_measures(counts):
    """Run the macros over a long counts table and return rows in item order."""
    macros = render_macros()
    con = duckdb.connect()
    long = [(i, j, int(c)) for i, row in enumerate(counts) for j, c in enumerate(row)]
    con.execute("create table counts (item integer, category integer, n_ratings bigint)")
    con.executemany("insert into counts values (?, ?, ?)", long)
    aggregated = f"""
        select item,
               sum(n_ratings) as n, count(*) as k,
               sum(case when n_ratings > 0 then 1 else 0 end) as n_used,
               sum(n_ratings * n_ratings) as sum_sq,
               sum({macros.rater_n_ln_n("n_ratings")}) as sum_n_ln_n
        from counts group by item
    """
    columns = {
        "dispersion_index": macros.rater_dispersion_index("n", "sum_sq", "k"),
        "fleiss_pi": macros.rater_fleiss_pi("n", "sum_sq"),
        "one_minus_pi": macros.rater_one_minus_pi("n", "sum_sq"),
        "group_disagreement": macros.rater_group_disagreement("n", "sum_sq"),
        "simpson_index": macros.rater_simpson_index("n", "sum_sq"),
        "gini_simpson": macros.rater_gini_simpson("n", "sum_sq"),
        "entropy_bits": macros.rater_entropy_bits("n", "sum_n_ln_n", "n_used"),
        "entropy_nats": macros.rater_entropy_nats("n", "sum_n_ln_n", "n_used"),
        "entropy_norm_k": macros.rater_entropy_norm_k("n", "sum_n_ln_n", "n_used", "k"),
        "entropy_norm_n": macros.rater_entropy_norm_n("n", "sum_n_ln_n", "n_used"),
        "null_reason": macros.rater_null_reason("n", "k"),
    }
    select = ", ".join(f"{sql} as {name}" for name, sql in columns.items())
    rows = con.execute(f"select {select} from ({aggregated}) order by item").fetchall()
    return {name: [row[c] for row in rows] for c, name in enumerate(columns)}


@pytest.mark.parametrize(
    "counts",
    [
        REFERENCE_COUNTS,
        WIKIPEDIA_14_RATERS,
        np.array([[1, 0, 0], [4, 0, 0], [1, 1, 1], [2, 0, 1]]),
        np.array([[5], [1]]),
    ],
)
def test_sql_macros_match_library(counts):
    k = counts.shape[1]
    expected = rater.item_measures(counts, k)
    got = sql_item_measures(counts)
    for name, values in got.items():
        if name == "null_reason":
            assert values == list(expected[name]), name
            continue
        got_values = np.array([np.nan if v is None else v for v in values], dtype=float)
        np.testing.assert_allclose(got_values, expected[name], atol=TOL, equal_nan=True)
    # unanimity gives an exact zero entropy
    unanimous = counts.max(axis=1) == counts.sum(axis=1)
    assert all(got["entropy_nats"][i] == 0 for i in np.flatnonzero(unanimous))


def test_sql_slug_macro():
    macros = render_macros()
    sql = macros.rater_slug("name")
    con = duckdb.connect()
    got = con.execute(
        f"select {sql} from (values ('GPT-4o'), ('Claude 3.5 Sonnet'), (' Llama (3) ')) t(name)"
    ).fetchall()
    assert [g[0] for g in got] == ["gpt_4o", "claude_3_5_sonnet", "llama_3"]
    assert re.fullmatch(r"[a-z0-9_]+", got[0][0])


# ------------------------------------------------------------------------------------------
# the marts end to end, against peers computed from the ratings with pandas
# ------------------------------------------------------------------------------------------
def expected_ratings(marts) -> dict:
    """dataset -> items x categories counts (DataFrame), built here with pandas alone from
    the seed and the cross-lingual answers (the lead's normalised model), valid ones only."""
    import pandas as pd

    seed = pd.read_csv(ROOT / "seeds" / "rater" / "rater_ratings.csv", dtype=str)
    declared = pd.read_csv(ROOT / "seeds" / "rater" / "rater_categories.csv", dtype=str)
    answers = marts.sql(
        "select model, run, item_id, language, original_option "
        "from intermediate.int_mcq_answers_normalised where is_valid"
    ).df()
    answers["item_id"] = answers["item_id"].astype(str)
    slug = answers["model"].str.lower().str.replace(r"[^a-z0-9]+", "_", regex=True).str.strip("_")
    frames = [
        seed,
        answers[answers["run"] == "base"].assign(
            dataset="models_as_raters_" + answers["language"], rater_id=answers["model"]
        ),
        answers.assign(
            dataset="languages_as_raters_" + slug + "_" + answers["run"],
            rater_id=answers["language"],
        ),
    ]
    ratings = pd.concat(
        [f.rename(columns={"original_option": "category"}) for f in frames], ignore_index=True
    )
    options = ["A", "B", "C", "D"]
    out = {}
    for dataset, group in ratings.groupby("dataset"):
        cats = sorted(declared.loc[declared["dataset"] == dataset, "category"]) or options
        table = pd.crosstab(group["item_id"], pd.Categorical(group["category"], cats), dropna=False)
        out[dataset] = table.reindex(columns=cats, fill_value=0)
    return out


def test_marts_match_peers(marts):
    expected = expected_ratings(marts)
    summary = marts.sql("select * from marts.rater_agreement_summary").df().set_index("dataset")
    items = marts.sql("select * from marts.rater_item_disagreement").df()
    categories = marts.sql("select * from marts.rater_category_kappa").df()
    assert set(summary.index) == set(expected)
    assert {"reference_examples", "models_as_raters_en", "models_as_raters_fa"} <= set(expected)
    assert any(name.startswith("languages_as_raters_gpt_4o_") for name in expected)

    for dataset, table in expected.items():
        counts = table.to_numpy()
        row = summary.loc[dataset]
        assert row["n_items"] == len(table)
        assert row["n_categories"] == counts.shape[1]
        n = counts.sum(axis=1)
        if (n == n[0]).all():  # statsmodels assumes every item has all raters
            assert row["fleiss_kappa"] == pytest.approx(sm_fleiss_kappa(counts), abs=TOL)
            assert row["randolph_kappa"] == pytest.approx(
                sm_fleiss_kappa(counts, method="randolph"), abs=TOL
            )
        assert row["krippendorff_alpha_nominal"] == pytest.approx(
            krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"), abs=TOL
        )
        assert row["fleiss_kappa_ci_low"] <= row["fleiss_kappa"] <= row["fleiss_kappa_ci_high"]

        got = items[items["dataset"] == dataset].set_index("item_id").loc[table.index]
        shares = counts / n[:, None]
        np.testing.assert_allclose(got["entropy_nats"], scipy_entropy(shares, axis=1), atol=TOL)
        np.testing.assert_allclose(
            got["entropy_bits"], scipy_entropy(shares, base=2, axis=1), atol=TOL
        )
        pairs = n * (n - 1)
        np.testing.assert_allclose(
            got["fleiss_pi"], ((counts**2).sum(axis=1) - n) / pairs, atol=TOL
        )
        k = counts.shape[1]
        np.testing.assert_allclose(
            got["dispersion_index"],
            k * (n**2 - (counts**2).sum(axis=1)) / ((k - 1) * n**2),
            atol=TOL,
        )

        got_cat = categories[categories["dataset"] == dataset].set_index("category")
        for j, category in enumerate(table.columns):
            binary = np.column_stack([counts[:, j], n - counts[:, j]])
            if (n == n[0]).all() and 0 < binary[:, 0].sum() < binary.sum():
                assert got_cat.loc[category, "category_kappa"] == pytest.approx(
                    sm_fleiss_kappa(binary), abs=TOL
                )


@pytest.mark.slow
def test_bench_quick(tmp_path):
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_rater.py"), "--quick",
         "--results-dir", str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    report = __import__("json").loads((tmp_path / "rater_quick.json").read_text())
    assert report["sides"]["ours"]["kappa"] == pytest.approx(
        report["sides"]["statsmodels"]["kappa"], abs=TOL
    )
    assert (tmp_path / "rater_quick.md").read_text().startswith("# Rater measures benchmark")
