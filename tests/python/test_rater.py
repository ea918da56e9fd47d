"""Rater agreement against independent implementations and published values.

- The per-item measures live only in SQL (macros/rater_measures.sql): they are rendered with
  plain Jinja, run in DuckDB and checked against recomputations from the definitions
  (brute-force rater pairs, Whitworth's disagreement matrix, scipy.stats.entropy).
- The coefficients (concord_stats.rater_coefficients) against irrCAC's published values on
  Gwet's (2014) handbook data set, which is Krippendorff's (2011) reliability example
  (α_nominal = 0.743), live irrCAC when it is importable, statsmodels (fleiss_kappa,
  cohens_kappa), krippendorff (all four levels), nltk (pi, S, alpha, kappa), scikit-learn's
  cohen_kappa_score, and Fleiss (1971): κ = 0.430 with per-category kappas (irr's
  kappam.fleiss: 0.4302445).
- Fleiss' per-category kappas (concord_stats.rater) against statsmodels.
"""

from __future__ import annotations

import itertools
import math
import re
import subprocess
import sys

import duckdb
import jinja2
import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.metrics.agreement import AnnotationTask
from scipy import stats as scipy_stats
from scipy.stats import entropy as scipy_entropy
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from concord_io.project import PROJECT_ROOT as ROOT
from concord_stats import rater
from concord_stats import rater_coefficients as rcoef
from concord_stats.bootstrap import make_rng, resample_counts, unit_resample_blocks
from concord_stats.rater_coefficients import (
    Ratings,
    dataset_coefficients,
    krippendorff_distance,
    se_inference,
    weight_matrix,
)

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


# Gwet (2014) / Krippendorff (2011): 12 units, 4 raters, values 1-5, missing ratings (NaN).
# irrCAC ships it as raw_4raters; its documentation publishes the values used below.
GWET_4RATERS = np.array(
    [
        [1, 1, np.nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2],
        [1, 2, 3, 4], [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [np.nan, 5, 5, 5],
        [np.nan, np.nan, 1, 1], [np.nan, np.nan, 3, np.nan],
    ]
)  # fmt: skip


def codes_of(values: np.ndarray, categories) -> np.ndarray:
    """items x raters codes 0..q-1 (-1 missing) from raw values."""
    lookup = {c: i for i, c in enumerate(categories)}
    return np.vectorize(lambda v: -1 if np.isnan(v) else lookup[v])(values).astype(int)


def coefficients(codes, q, **kwargs):
    """{(coefficient, weights): (estimate, std_error)} and the pair rows of one dataset."""
    kwargs = {"n_resamples": 50, "confidence": 0.95, "seed": 1, **kwargs}
    rows, pairs = dataset_coefficients(codes, q, **kwargs)
    return {
        (r.coefficient, r.weights): (float(r.interval.estimate), r.std_error) for r in rows
    }, pairs


def random_codes(seed, n_items, n_raters, q, missing=0.0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, q, size=(n_items, 1))
    noise = rng.integers(0, q, size=(n_items, n_raters))
    codes = np.where(rng.random((n_items, n_raters)) < 0.6, truth, noise)
    codes[rng.random((n_items, n_raters)) < missing] = -1
    return codes


# ------------------------------------------------------------------------------------------
# per-item measures: the SQL macros, run in DuckDB, against the definitions
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


REASON_ONE_RATER = (
    "one rater: fleiss_pi, one_minus_pi, group_disagreement and simpson_index are 0/0 "
    "(no rater pairs), entropy_norm_n divides by ln(1) = 0"
)
REASON_ONE_CATEGORY = (
    "one declared category: dispersion_index and entropy_norm_k divide by K - 1 = 0 and ln(1) = 0"
)


def expected_item_measures(counts):
    """Every measure from its definition, item by item (brute force over rater pairs)."""
    k = counts.shape[1]
    out = {name: [] for name in ("dispersion_index", "fleiss_pi", "one_minus_pi",
                                 "group_disagreement", "simpson_index", "gini_simpson",
                                 "entropy_bits", "entropy_nats", "entropy_norm_k",
                                 "entropy_norm_n", "null_reason")}  # fmt: skip
    for row in counts:
        labels = ratings_from_counts(row)
        n = len(labels)
        shares = np.array(row) / n if n else np.full(k, np.nan)
        pairs = n >= 2
        pi = pairwise_agreement(labels) if pairs else np.nan
        # Walker's DI: variance of the category indicators relative to its maximum
        out["dispersion_index"].append(k / (k - 1) * (1 - (shares**2).sum()) if k > 1 else np.nan)
        out["fleiss_pi"].append(pi)
        out["one_minus_pi"].append(1 - pi)
        out["group_disagreement"].append(whitworth_gd(labels) if pairs else np.nan)
        same = sum(a == b for a, b in itertools.permutations(labels, 2))
        out["simpson_index"].append(1 - same / (n * (n - 1)) if pairs else np.nan)
        out["gini_simpson"].append(1 - (shares**2).sum())
        h = scipy_entropy(shares)
        out["entropy_nats"].append(h)
        out["entropy_bits"].append(scipy_entropy(shares, base=2))
        out["entropy_norm_k"].append(h / math.log(k) if k > 1 else np.nan)
        out["entropy_norm_n"].append(h / math.log(n) if pairs else np.nan)
        reasons = ([REASON_ONE_RATER] if n == 1 else []) + ([REASON_ONE_CATEGORY] if k == 1 else [])
        out["null_reason"].append("; ".join(reasons) or None)
    return out


@pytest.mark.parametrize(
    "counts",
    [
        REFERENCE_COUNTS,
        WIKIPEDIA_14_RATERS,
        np.array([[1, 0, 0], [4, 0, 0], [1, 1, 1], [2, 0, 1], [3, 3, 0]]),
        np.array([[5], [1]]),
    ],
)
def test_sql_macros_match_the_definitions(counts):
    expected = expected_item_measures(counts)
    got = sql_item_measures(counts)
    for name, values in got.items():
        if name == "null_reason":
            assert values == expected[name], name
            continue
        got_values = np.array([np.nan if v is None else v for v in values], dtype=float)
        np.testing.assert_allclose(
            got_values, expected[name], atol=TOL, equal_nan=True, err_msg=name
        )
    # unanimity gives an exact zero entropy
    unanimous = counts.max(axis=1) == counts.sum(axis=1)
    assert all(got["entropy_nats"][i] == 0 for i in np.flatnonzero(unanimous))


def test_sql_macros_published_values_and_identities():
    # Walker's DI for AABBCD: 4 (36 - 10) / (3 * 36) = 104/108; GD for AAAAAB: 10/30; two
    # categories used of four declared: DI uses K = 4, not the two observed
    got = sql_item_measures(np.vstack([REFERENCE_COUNTS, [3, 3, 0, 0]]))
    assert got["dispersion_index"][0] == 0
    assert got["dispersion_index"][7] == pytest.approx(104 / 108, abs=TOL)
    assert got["group_disagreement"][1] == pytest.approx(10 / 30, abs=TOL)
    assert got["group_disagreement"][7] == pytest.approx(26 / 30, abs=TOL)
    assert got["dispersion_index"][8] == pytest.approx(4 * (36 - 18) / (3 * 36), abs=TOL)
    assert got["entropy_norm_k"][8] == pytest.approx(math.log(2) / math.log(4), abs=TOL)
    gd, pi = np.array(got["group_disagreement"]), np.array(got["fleiss_pi"])
    np.testing.assert_allclose(gd, 1 - pi, atol=TOL)
    np.testing.assert_allclose(gd, got["simpson_index"], atol=TOL)


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
# weights
# ------------------------------------------------------------------------------------------
def test_weights_are_irrcacs():
    # Gwet (2014), table 3.x / irrCAC's documentation: bipolar weights of 1..5
    bipolar = weight_matrix("bipolar", np.arange(1, 6))
    np.testing.assert_allclose(bipolar[0], [1, 0.85714286, 0.66666667, 0.4, 0], atol=1e-8)
    np.testing.assert_allclose(bipolar[1, 2:], [0.93333333, 0.75, 0.4], atol=1e-8)
    x = np.arange(1, 6)
    np.testing.assert_allclose(weight_matrix("linear", x)[0], [1, 0.75, 0.5, 0.25, 0])
    np.testing.assert_allclose(weight_matrix("quadratic", x)[0], [1, 15 / 16, 0.75, 7 / 16, 0])
    np.testing.assert_allclose(weight_matrix("ordinal", x)[0], [1, 0.9, 0.7, 0.4, 0])
    for name in ("linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar"):
        w = weight_matrix(name, x)
        np.testing.assert_allclose(np.diag(w), 1)
        np.testing.assert_allclose(w, w.T)
        assert w.min() >= -1e-12
    with pytest.raises(ValueError, match="positive"):
        weight_matrix("ratio", np.arange(0, 4))
    with pytest.raises(ValueError, match="unknown"):
        weight_matrix("cubic", x)


def test_krippendorff_ordinal_distance_uses_the_marginals():
    # Krippendorff (2011): δ²_ck = (Σ_{g=c..k} n_g − (n_c + n_k)/2)²
    n = np.array([3.0, 5.0, 2.0])
    d = krippendorff_distance("ordinal", np.arange(1, 4), n)
    assert d[0, 2] == pytest.approx((3 + 5 + 2 - (3 + 2) / 2) ** 2)
    assert d[0, 1] == pytest.approx((3 + 5 - 4) ** 2)
    assert d[1, 1] == 0


# ------------------------------------------------------------------------------------------
# the coefficients: published values
# ------------------------------------------------------------------------------------------
def test_gwet_handbook_and_krippendorff_2011_published():
    codes = codes_of(GWET_4RATERS, [1, 2, 3, 4, 5])
    got, _ = coefficients(codes, 5)
    # irrCAC's documentation (Gwet 2014): AC1 0.77544 (se 0.14295), Fleiss 0.76117 (0.15302)
    assert got[("gwet_ac1", "unweighted")] == pytest.approx((0.77544, 0.14295), abs=5e-6)
    assert got[("fleiss_kappa", "unweighted")] == pytest.approx((0.76117, 0.15302), abs=5e-6)
    # Krippendorff (2011), the same data: nominal alpha 0.743
    assert round(got[("krippendorff_alpha", "unweighted")][0], 3) == 0.743
    assert got[("percent_agreement", "unweighted")][0] == pytest.approx(0.81818, abs=5e-6)
    bipolar, _ = coefficients(codes, 5, weights="bipolar", values=np.arange(1, 6))
    assert bipolar[("gwet_ac2", "bipolar")] == pytest.approx((0.90037, 0.10582), abs=5e-6)
    # Krippendorff (2011): interval alpha 0.849 on the same data
    assert round(bipolar[("krippendorff_alpha", "quadratic")][0], 3) == 0.849


def test_gwet_handbook_irrcac_values():
    """irrCAC 0.4.4 (CAC(raw_4raters, categories=[1..5], digits=10)), recorded: irrCAC pins
    scipy==1.12.0 and cannot be installed beside this project's scipy."""
    codes = codes_of(GWET_4RATERS, [1, 2, 3, 4, 5])
    got, _ = coefficients(codes, 5)
    expected = {
        "brennan_prediger": (0.7727272727, 0.1447166199),
        "conger_kappa": (0.7628174413, 0.1491681525),
        "krippendorff_alpha": (0.7434210526, 0.145573887),
    }
    for name, value in expected.items():
        assert got[(name, "unweighted")] == pytest.approx(value, abs=1e-9), name
    quadratic, _ = coefficients(codes, 5, weights="quadratic", values=np.arange(1, 6))
    expected = {
        "fleiss_kappa": (0.8649350649, 0.1460336108),
        "gwet_ac2": (0.9140007236, 0.1039622446),
        "brennan_prediger": (0.9015151515, 0.110894375),
        "conger_kappa": (0.8577106562, 0.1436706638),
    }
    for name, value in expected.items():
        assert quadratic[(name, "quadratic")] == pytest.approx(value, abs=1e-9), name
    assert quadratic[("krippendorff_alpha", "quadratic")] == pytest.approx(
        (0.8491071429, 0.1291299657), abs=1e-9
    )


@pytest.mark.parametrize("weights", ["identity", "linear", "ordinal", "circular", "radical"])
def test_against_live_irrcac(weights):
    # make install installs irrCAC (pinned, without its old scipy): a missing peer fails here
    from irrCAC.raw import CAC

    codes = random_codes(5, 40, 4, 5, missing=0.15)
    codes = codes[(codes >= 0).sum(1) >= 1]
    frame = pd.DataFrame(np.where(codes >= 0, codes + 1.0, np.nan))
    cac = CAC(frame, weights=weights, categories=[1.0, 2.0, 3.0, 4.0, 5.0], digits=12)
    label = "unweighted" if weights == "identity" else weights
    got, _ = coefficients(codes, 5, weights=weights, values=np.arange(1, 6))
    ac = "gwet_ac1" if weights == "identity" else "gwet_ac2"
    for ours, method in [("fleiss_kappa", cac.fleiss), (ac, cac.gwet), ("brennan_prediger", cac.bp),
                         ("conger_kappa", cac.conger)]:  # fmt: skip
        est = method()["est"]
        assert got[(ours, label)] == pytest.approx(
            (est["coefficient_value"], est["se"]), abs=1e-9
        ), ours
        # z, p-value and the t interval irrCAC prints beside them (its Brennan-Prediger
        # p-value is one-sided: twice it is ours)
        inference = se_inference(*map(np.array, ([est["coefficient_value"]], [est["se"]],
                                                 [len(codes)])), 0.95)  # fmt: skip
        sided = 2 if ours == "brennan_prediger" else 1
        assert [float(inference[k][0]) for k in ("z", "p_value", "se_ci_low", "se_ci_high")] == (
            pytest.approx([est["z"], sided * est["p_value"], *est["confidence_interval"]],
                          abs=1e-9)
        ), ours  # fmt: skip


def test_se_inference_is_student_t_as_scipy_stats_computes_it():
    """z, the two-sided p-value and the t interval from scipy.special's Student t equal
    scipy.stats.t's, bit for bit, over a grid; an SE of 0 or one item gives NaN."""
    from scipy import stats

    rng = np.random.default_rng(5)
    estimate, std_error = rng.uniform(-1, 1, 400), rng.uniform(1e-4, 0.6, 400)
    n_items = rng.integers(2, 5000, 400)
    got = se_inference(estimate, std_error, n_items, 0.9)
    df = n_items - 1.0
    z = estimate / std_error
    half = stats.t.ppf(0.95, df) * std_error
    np.testing.assert_array_equal(got["p_value"], 2 * stats.t.sf(np.abs(z), df))
    np.testing.assert_array_equal(got["se_ci_low"], estimate - half)
    np.testing.assert_array_equal(got["se_ci_high"], np.minimum(estimate + half, 1.0))
    degenerate = se_inference(np.array([0.5, 0.5]), np.array([0.0, 0.1]), np.array([10, 1]), 0.95)
    assert all(np.isnan(v).all() for v in degenerate.values())
    # and the statistics' package never imports scipy.stats (about 1 s in every dbt build)
    code = (
        "import sys, numpy as np, concord_stats.consistency, concord_stats.rater_coefficients as r;"
        "r.se_inference(np.array([.5]), np.array([.1]), np.array([9]), .95);"
        "print('scipy.stats' in sys.modules)"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert loaded.stdout.strip() == "False", loaded.stderr


def test_fleiss_1971_published():
    table, _ = aggregate_raters(FLEISS_1971)
    got, _ = coefficients(FLEISS_1971 - 1, 5)
    assert round(got[("fleiss_kappa", "unweighted")][0], 3) == 0.430
    assert got[("fleiss_kappa", "unweighted")][0] == pytest.approx(sm_fleiss_kappa(table), abs=TOL)
    # Fleiss (1971), per-category kappas: .245 .245 .520 .471 .566
    np.testing.assert_allclose(
        rater.fleiss_category_kappa(table), [0.245, 0.245, 0.520, 0.471, 0.566], atol=5e-4
    )
    # R irr's kappam.fleiss on its `diagnoses` data, which is this table: 0.4302445
    assert round(float(got[("fleiss_kappa", "unweighted")][0]), 7) == 0.4302445


def _patterns(codes, q):
    """The distinct rows of category counts of rated items, and how many items show each."""
    counts = rater.category_counts(np.asarray(codes), q)
    return np.unique(counts[counts.sum(axis=1) > 0], axis=0, return_counts=True)


def test_fleiss_kappa_of_patterns_is_fleiss_1971_and_statsmodels():
    table, _ = aggregate_raters(FLEISS_1971)
    patterns, multiplicity = _patterns(FLEISS_1971 - 1, 5)
    kappa = float(rcoef.fleiss_kappa_of_patterns(patterns)(multiplicity[None, :])[0])
    assert round(kappa, 7) == 0.4302445  # Fleiss (1971); R irr's kappam.fleiss
    assert kappa == pytest.approx(sm_fleiss_kappa(table), abs=TOL)


@pytest.mark.parametrize("missing", [0.0, 0.3])
def test_fleiss_kappa_of_patterns_equals_the_coefficients_on_the_items_drawn(missing):
    """Items with missing ratings (and with one rating) included: the statistic of any
    multiplicities is the coefficients' Fleiss kappa of the items repeated that often."""
    codes = random_codes(7, 300, 3, 4, missing=missing)
    counts = rater.category_counts(codes, 4)
    codes = codes[counts.sum(axis=1) > 0]
    patterns, index, multiplicity = np.unique(
        rater.category_counts(codes, 4), axis=0, return_inverse=True, return_counts=True
    )
    statistic = rcoef.fleiss_kappa_of_patterns(patterns)
    draws = np.vstack([multiplicity, resample_counts(multiplicity, 3, make_rng(3))])
    for drawn, kappa in zip(draws, statistic(draws), strict=True):
        # each item of a pattern stands for it: repeat the pattern's first item
        items = np.concatenate([np.flatnonzero(index == p)[:1].repeat(c)
                                for p, c in enumerate(drawn)])  # fmt: skip
        expected = rcoef.point_estimates(codes[items], 4)[("fleiss_kappa", "unweighted")]
        assert kappa == pytest.approx(expected, abs=TOL)


def test_fleiss_kappa_of_patterns_degenerate():
    # every rating in one category: chance agreement 1, kappa 0/0
    assert np.isnan(rcoef.fleiss_kappa_of_patterns(np.array([[3, 0]]))(np.array([[5]])))[0]
    # no item with two ratings: no agreement to measure
    assert np.isnan(rcoef.fleiss_kappa_of_patterns(np.array([[1, 0], [0, 1]]))(
        np.array([[2, 2]])))[0]  # fmt: skip
    with pytest.raises(ValueError, match="rated at least once"):
        rcoef.fleiss_kappa_of_patterns(np.array([[0, 0]]))


def test_wikipedia_published():
    codes = np.array([ratings_from_counts(row) for row in WIKIPEDIA_14_RATERS])
    got, _ = coefficients(codes, 5)
    assert round(got[("fleiss_kappa", "unweighted")][0], 3) == 0.210


# ------------------------------------------------------------------------------------------
# the coefficients: peers on normal data
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_complete_data_against_statsmodels_nltk_krippendorff_sklearn(seed):
    n_raters, q = 3 + seed, 4
    codes = random_codes(seed, 30, n_raters, q)
    got, pairs = coefficients(codes, q, weights="quadratic", values=np.arange(1, q + 1))
    table = rater.category_counts(codes, q)
    assert got[("fleiss_kappa", "unweighted")][0] == pytest.approx(sm_fleiss_kappa(table), abs=TOL)
    assert got[("brennan_prediger", "unweighted")][0] == pytest.approx(
        sm_fleiss_kappa(table, method="randolph"), abs=TOL
    )
    task = AnnotationTask(
        data=[(f"r{g}", f"i{i}", int(c)) for i, row in enumerate(codes) for g, c in enumerate(row)]
    )
    assert got[("light_kappa", "unweighted")][0] == pytest.approx(task.kappa(), abs=TOL)
    assert got[("krippendorff_alpha", "unweighted")][0] == pytest.approx(task.alpha(), abs=TOL)
    reliability = codes.T.astype(float)
    for level, label in [("nominal", "unweighted"), ("ordinal", "ordinal"),
                         ("interval", "quadratic"), ("ratio", "ratio")]:  # fmt: skip
        expected = krippendorff.alpha(reliability_data=reliability + 1, level_of_measurement=level)
        assert got[("krippendorff_alpha", label)][0] == pytest.approx(expected, abs=TOL), level
    # every pair: Cohen's kappa (and quadratic-weighted) as scikit-learn and statsmodels
    by_pair = {(p["rater_a"], p["rater_b"], p["measure"], p["weights"]): p for p in pairs}
    for a, b in itertools.combinations(range(n_raters), 2):
        for weights, sk, sm in [
            ("unweighted", None, None),
            ("quadratic", "quadratic", "quadratic"),
        ]:
            expected = cohen_kappa_score(codes[:, a], codes[:, b], weights=sk, labels=range(q))
            got_pair = float(by_pair[(a, b, "cohen_kappa", weights)]["interval"].estimate)
            assert got_pair == pytest.approx(expected, abs=TOL)
            joint = np.zeros((q, q))
            np.add.at(joint, (codes[:, a], codes[:, b]), 1)
            assert got_pair == pytest.approx(
                cohens_kappa(joint, wt=sm, return_results=False), abs=TOL
            )


def test_two_raters_with_missing_ratings():
    codes = random_codes(11, 50, 2, 3, missing=0.2)
    got, pairs = coefficients(codes, 3)
    both = (codes >= 0).all(axis=1)
    a, b = codes[both, 0], codes[both, 1]
    kappa = cohen_kappa_score(a, b, labels=range(3))
    assert got[("cohen_kappa", "unweighted")][0] == pytest.approx(kappa, abs=TOL)
    po = (a == b).mean()
    assert got[("pabak", "unweighted")][0] == pytest.approx((3 * po - 1) / 2, abs=TOL)
    assert got[("percent_agreement", "unweighted")][0] == pytest.approx(po, abs=TOL)
    # Scott's pi over the items both rated is nltk's pi of those items
    task = AnnotationTask(data=[(r, i, int(c)) for i in range(both.sum()) for r, c in
                                (("a", a[i]), ("b", b[i]))])  # fmt: skip
    assert got[("scott_pi", "unweighted")][0] == pytest.approx(task.pi(), abs=TOL)
    # bias index: half the L1 distance of the two raters' shares
    pa_, pb_ = np.bincount(a, minlength=3) / len(a), np.bincount(b, minlength=3) / len(b)
    assert got[("bias_index", "unweighted")][0] == pytest.approx(np.abs(pa_ - pb_).sum() / 2)
    assert np.isnan(got[("prevalence_index", "unweighted")][0])  # three categories
    # Krippendorff's alpha with missing values, as the krippendorff package
    reliability = np.where(codes >= 0, codes, np.nan).T
    assert got[("krippendorff_alpha", "unweighted")][0] == pytest.approx(
        krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal"), abs=TOL
    )
    assert pairs[0]["n_items"] == both.sum()


def test_byrt_prevalence_and_bias_on_a_two_by_two_table():
    # a = 40 both yes, b = 9, c = 6, d = 45 both no: PI = |a - d| / n, BI = |b - c| / n
    cells = [(0, 0)] * 40 + [(0, 1)] * 9 + [(1, 0)] * 6 + [(1, 1)] * 45
    got, _ = coefficients(np.array(cells), 2)
    assert got[("prevalence_index", "unweighted")][0] == pytest.approx(5 / 100)
    assert got[("bias_index", "unweighted")][0] == pytest.approx(3 / 100)
    assert got[("pabak", "unweighted")][0] == pytest.approx(2 * 0.85 - 1)


# ------------------------------------------------------------------------------------------
# degenerate cases, bootstrap, properties
# ------------------------------------------------------------------------------------------
def test_degenerate_datasets():
    # every rating in one category: agreement 1, every chance-corrected kappa 0/0
    one_category, _ = coefficients(np.zeros((5, 3), dtype=int), 3)
    assert one_category[("percent_agreement", "unweighted")][0] == 1
    for name in ("fleiss_kappa", "conger_kappa", "krippendorff_alpha", "light_kappa"):
        assert np.isnan(one_category[(name, "unweighted")][0]), name
    # BP and AC1 stay defined (their chance agreement does not depend on the marginals)
    assert one_category[("brennan_prediger", "unweighted")][0] == 1
    assert one_category[("gwet_ac1", "unweighted")][0] == 1
    # no item with two ratings: nothing is defined
    lonely, pairs = coefficients(np.array([[0, -1], [-1, 1]]), 2)
    assert all(np.isnan(v[0]) for v in lonely.values())
    assert all(p["n_items"] == 0 for p in pairs)
    # perfect agreement over two categories
    perfect, _ = coefficients(np.array([[0, 0, 0], [1, 1, 1], [0, 0, 0]]), 2)
    for name in ("fleiss_kappa", "conger_kappa", "light_kappa", "gwet_ac1", "krippendorff_alpha"):
        assert perfect[(name, "unweighted")][0] == pytest.approx(1.0), name
    with pytest.raises(ValueError):
        Ratings(np.array([[0, 3]]), 3)


def assert_percentile_intervals(rows, replicates: dict[str, list[float]]) -> None:
    """Each coefficient's 90% interval is the 5th and 95th percentiles of its replicates
    (the undefined ones left out)."""
    for r in rows:
        values = np.array(replicates[r.coefficient])
        values = values[~np.isnan(values)]
        assert r.interval.ci_low == pytest.approx(np.quantile(values, 0.05), abs=1e-9)
        assert r.interval.ci_high == pytest.approx(np.quantile(values, 0.95), abs=1e-9)


@pytest.mark.parametrize("missing", [0.0, 0.1])
@pytest.mark.parametrize("item_block", [None, 7])
def test_bootstrap_equals_an_explicit_resampling_loop(missing, item_block, monkeypatch):
    # replicates come from the per-item terms, estimates from sufficient statistics: the
    # loop of estimates on resampled items checks one against the other (also with blocks
    # of 7 items, the last one partial)
    if item_block:
        monkeypatch.setattr(rcoef, "ITEM_BLOCK", item_block)
    codes = random_codes(3, 25, 3, 3, missing=missing)
    rows, pairs = dataset_coefficients(codes, 3, n_resamples=60, confidence=0.9, seed=7)
    # the same item draws (the seed's resample counts, as item indices), coefficient by
    # coefficient
    data = Ratings(codes, 3)
    counts = np.zeros((60, data.n_items), dtype=np.int64)
    for lo, hi, r0, block in unit_resample_blocks(data.n_items, 60, 7, rcoef.ITEM_BLOCK):
        counts[r0 : r0 + block.shape[0], lo:hi] = block
    replicates = {}
    for draw in (np.repeat(np.arange(data.n_items), row) for row in counts):
        again, again_pairs = dataset_coefficients(
            data.codes[draw], 3, n_resamples=1, confidence=0.9, seed=0
        )
        for r in again:
            replicates.setdefault(r.coefficient, []).append(float(r.interval.estimate))
    assert_percentile_intervals(rows, replicates)
    # seeded: the same seed gives the same intervals
    again, _ = dataset_coefficients(codes, 3, n_resamples=60, confidence=0.9, seed=7)
    assert [float(r.interval.ci_low) for r in again] == pytest.approx(
        [float(r.interval.ci_low) for r in rows], abs=1e-12, nan_ok=True
    )


@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_bootstrap_of_repeated_patterns_equals_an_explicit_resampling_loop(missing):
    # 400 items of three raters repeat few patterns: the bootstrap draws patterns
    # (Multinomial(n, pattern counts / n), the distribution of resampling the items); the
    # loop of estimates on the items those draws stand for must give the same intervals
    patterns = random_codes(5, 12, 3, 3, missing=missing)
    codes = patterns[np.random.default_rng(3).integers(0, len(patterns), 400)]
    data = Ratings(codes, 3)
    assert rcoef._Terms(data, {})._repeated_patterns() is not None
    rows, _ = dataset_coefficients(codes, 3, n_resamples=60, confidence=0.9, seed=7)
    distinct, multiplicity = np.unique(data.codes, axis=0, return_counts=True)
    draws = resample_counts(multiplicity, 60, make_rng(7))
    replicates = {}
    for row in draws:
        again, _ = dataset_coefficients(
            np.repeat(distinct, row, axis=0), 3, n_resamples=0, confidence=0.9, seed=0
        )
        for r in again:
            replicates.setdefault(r.coefficient, []).append(float(r.interval.estimate))
    assert_percentile_intervals(rows, replicates)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5), st.integers(2, 4), st.integers(1, 20))
def test_bounds_and_invariance(seed, n_raters, q, n_items):
    codes = random_codes(seed, n_items, n_raters, q, missing=0.2)
    if not (codes >= 0).any():
        return
    got, _ = coefficients(codes, q)
    for (name, _), (value, se) in got.items():
        if name in ("percent_agreement", "bias_index", "prevalence_index"):
            assert np.isnan(value) or -TOL <= value <= 1 + TOL, name
        else:
            assert np.isnan(value) or value <= 1 + TOL, name
        assert np.isnan(se) or se >= 0
    # relabelling the categories and reordering the items change nothing (nominal)
    perm = np.random.default_rng(seed).permutation(q)
    relabelled = np.where(codes >= 0, perm[np.maximum(codes, 0)], -1)
    again, _ = coefficients(relabelled[::-1], q)
    for key, (value, _) in got.items():
        assert again[key][0] == pytest.approx(value, abs=1e-9, nan_ok=True), key


def test_category_kappas_match_statsmodels():
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 4, size=(40, 5))
    table, _ = aggregate_raters(codes, n_cat=4)
    np.testing.assert_array_equal(rater.category_counts(codes, 4), table)
    for j in range(4):
        binary = np.column_stack([table[:, j], table.sum(1) - table[:, j]])
        assert rater.fleiss_category_kappa(table)[j] == pytest.approx(
            sm_fleiss_kappa(binary), abs=TOL
        )
    kappas = rater.category_kappas(np.array([[3, 0, 0], [1, 2, 0]]))
    assert list(kappas["null_reason"]) == [None, None, rater.REASON_CATEGORY_NEVER]


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
        "select model, variant as run, item_id, language, chosen_option as original_option "
        "from intermediate.int_mcq_answers_normalised where is_valid"
    ).df()
    answers["item_id"] = answers["item_id"].astype(str)
    slug = answers["model"].str.lower().str.replace(r"[^a-z0-9]+", "_", regex=True).str.strip("_")
    frames = [
        seed,
        answers.assign(
            # the study's task keeps 0.1's names for the baseline variant; others add theirs
            dataset="models_as_raters_"
            + ("xcloze_" + answers["run"] + "_").where(answers["run"] != "base", "")
            + answers["language"],
            rater_id=answers["model"],
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
    coefficients_mart = marts.sql("select * from marts.rater_agreement_coefficients").df()
    pairs_mart = marts.sql("select * from marts.rater_pair_agreement").df()
    summary = marts.sql("select * from marts.rater_agreement_summary").df().set_index("dataset")
    items = marts.sql("select * from marts.rater_item_disagreement").df()
    assert set(summary.index) == set(expected) == set(coefficients_mart["dataset"])
    assert {"reference_examples", "models_as_raters_en", "models_as_raters_fa"} <= set(expected)
    assert any(name.startswith("languages_as_raters_gpt_4o_") for name in expected)

    for dataset, table in expected.items():
        counts = table.to_numpy()
        got = coefficients_mart[coefficients_mart["dataset"] == dataset].set_index(
            ["coefficient", "weights"]
        )
        n = counts.sum(axis=1)
        assert (got["n_items"] == len(table)).all()
        assert (got["n_categories"] == counts.shape[1]).all()
        alpha = krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
        assert got.loc[("krippendorff_alpha", "unweighted"), "estimate"] == pytest.approx(alpha)
        if (n == n[0]).all():  # statsmodels assumes every item has all raters
            assert got.loc[("fleiss_kappa", "unweighted"), "estimate"] == pytest.approx(
                sm_fleiss_kappa(counts), abs=TOL
            )
        row = summary.loc[dataset]
        assert row["fleiss_kappa"] == got.loc[("fleiss_kappa", "unweighted"), "estimate"]
        assert row["randolph_kappa"] == got.loc[("brennan_prediger", "unweighted"), "estimate"]
        assert row["n_items"] == len(table)
        assert (got["ci_low"].fillna(-9) <= got["ci_high"].fillna(9)).all()
        # irrCAC's z, p-value and t interval from the standard error, recomputed with scipy
        shown = got.dropna(subset=["std_error"])
        shown = shown[shown["std_error"] > 0]
        assert len(shown) > 0
        t = scipy_stats.t(len(table) - 1)
        np.testing.assert_allclose(shown["z"], shown["estimate"] / shown["std_error"])
        np.testing.assert_allclose(shown["p_value"], 2 * t.sf(np.abs(shown["z"])))
        half = t.ppf(0.975) * shown["std_error"]
        np.testing.assert_allclose(shown["se_ci_low"], shown["estimate"] - half)
        np.testing.assert_allclose(shown["se_ci_high"], np.minimum(shown["estimate"] + half, 1.0))

        # per-item measures (SQL macros) against scipy and the definitions
        got_items = items[items["dataset"] == dataset].set_index("item_id").loc[table.index]
        shares = counts / n[:, None]
        np.testing.assert_allclose(
            got_items["entropy_nats"], scipy_entropy(shares, axis=1), atol=TOL
        )
        np.testing.assert_allclose(
            got_items["fleiss_pi"], ((counts**2).sum(axis=1) - n) / (n * (n - 1)), atol=TOL
        )

    # pairs of a derived dataset: Cohen's kappa as scikit-learn, over the items both rated
    answers = marts.sql(
        "select model, item_id, chosen_option as original_option "
        "from intermediate.int_mcq_answers_normalised "
        "where is_valid and variant = 'base' and language = 'en'"
    ).df()
    wide = answers.pivot(index="item_id", columns="model", values="original_option")
    en = pairs_mart[pairs_mart["dataset"] == "models_as_raters_en"]
    assert len(en) == len(wide.columns) * (len(wide.columns) - 1) // 2
    for pair in en.itertuples():
        both = wide[[pair.rater_id, pair.other_rater_id]].dropna()
        assert pair.n_items == len(both)
        kappa = cohen_kappa_score(both.iloc[:, 0], both.iloc[:, 1], labels=list("ABCD"))
        assert pair.cohen_kappa == pytest.approx(kappa, abs=TOL)
        assert pair.percent_agreement == pytest.approx((both.iloc[:, 0] == both.iloc[:, 1]).mean())
    # Light's kappa is the mean of the pair mart's kappas
    light = coefficients_mart.set_index(["dataset", "coefficient", "weights"]).loc[
        ("models_as_raters_en", "light_kappa", "unweighted"), "estimate"
    ]
    assert light == pytest.approx(en["cohen_kappa"].mean(), abs=TOL)


@pytest.mark.slow
def test_bench_quick(tmp_path):
    import subprocess

    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_rater.py"), "--quick",
         "--results-dir", str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    report = __import__("json").loads((tmp_path / "rater_quick.json").read_text())
    assert report["sides"]["ours"]["fleiss_kappa"] == pytest.approx(
        report["sides"]["statsmodels"]["fleiss_kappa"], abs=TOL
    )
    assert report["sides"]["ours"]["n_coefficients"] == 16  # 3 raters or more, quadratic
    assert (tmp_path / "rater_quick.md").read_text().startswith("# Rater agreement benchmark")


@pytest.mark.parametrize("missing", [0.0, 0.2])
def test_sums_do_not_depend_on_the_item_block(monkeypatch, missing):
    # the estimates' sums are accumulated block by block of items: blocks of 4 items give
    # the same sums as one block, and each pair's n_items is the items both raters rated
    codes = random_codes(17, 50, 4, 3, missing=missing)
    data = Ratings(codes, 3)
    weights = {"identity": np.eye(3)}
    whole = rcoef._Terms(data, weights).unit_sums()
    monkeypatch.setattr(rcoef, "ITEM_BLOCK", 4)
    # a new dataset: the first one keeps its one-hot Gram matrix, built in one block
    blocked = rcoef._Terms(Ratings(codes, 3), weights).unit_sums()
    assert whole.keys() == blocked.keys()
    for name, value in whole.items():
        np.testing.assert_allclose(blocked[name], value, rtol=1e-12, err_msg=name)
    _, pairs = dataset_coefficients(codes, 3, n_resamples=0, confidence=0.9, seed=0)
    present = data.codes >= 0
    for pair in pairs:
        both = present[:, pair["rater_a"]] & present[:, pair["rater_b"]]
        assert pair["n_items"] == both.sum()
