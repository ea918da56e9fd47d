"""The ordered-task marts, built by dbt: on the shipped synthetic sample (values against
scipy, the pattern the generator plants) and on a user seed with uneven task counts, a
missing ranking and every kind of bad ranking."""

from __future__ import annotations

import itertools
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from concord_io.project import PROJECT_ROOT, copy_project, run_dbt

pytestmark = pytest.mark.warehouse  # every test builds a warehouse

SAMPLE = PROJECT_ROOT / "seeds" / "ranking" / "ranking_rankings.csv"


def ranks_by_rater(frame: pd.DataFrame) -> dict[tuple[str, str], dict[str, int]]:
    """{(rater, scenario): {task: position}} -- ranks, straight from the long orders."""
    out: dict[tuple[str, str], dict[str, int]] = {}
    for row in frame.itertuples():
        out.setdefault((row.rater_id, row.scenario_id), {})[row.task_id] = int(row.position)
    return out


def scipy_pair_means(frame: pd.DataFrame) -> dict[tuple[str, str], tuple[float, int]]:
    ranks = ranks_by_rater(frame)
    raters = sorted(frame["rater_id"].unique())
    scenarios = sorted(frame["scenario_id"].unique())
    result = {}
    for a, b in itertools.product(raters, repeat=2):
        taus = []
        for q in scenarios:
            if (a, q) in ranks and (b, q) in ranks:
                tasks = sorted(ranks[(a, q)])
                x = [ranks[(a, q)][t] for t in tasks]
                y = [ranks[(b, q)][t] for t in tasks]
                taus.append(stats.kendalltau(x, y, variant="b").statistic)
        result[(a, b)] = (float(np.mean(taus)) if taus else np.nan, len(taus))
    return result


def friedman_w(frame: pd.DataFrame, scenario: str) -> float:
    block = frame[frame["scenario_id"] == scenario].pivot(
        index="rater_id", columns="task_id", values="position"
    )
    m, n = block.shape
    return stats.friedmanchisquare(*block.to_numpy().T).statistic / (m * (n - 1))


# --- the shipped sample -------------------------------------------------------------------


def test_sample_pair_matrix_matches_scipy(marts):
    frame = pd.read_csv(SAMPLE, dtype={"position": int})
    expected = scipy_pair_means(frame)
    rows = marts.sql("select * from marts.ranking_pair_kendall").df()
    assert len(rows) == 36  # 6 x 6 ordered pairs, diagonal included
    for row in rows.itertuples():
        mean, n = expected[(row.rater_id, row.other_rater_id)]
        assert row.mean_tau_b == pytest.approx(mean, abs=1e-12)
        assert row.n_scenarios == n == 150
        assert row.ci_low <= row.mean_tau_b <= row.ci_high


def test_sample_shows_the_planted_pattern(marts):
    pairs = marts.sql("select * from marts.ranking_pair_kendall").df()
    off = pairs[pairs.rater_id < pairs.other_rater_id].sort_values("mean_tau_b")
    assert tuple(off.iloc[-1][["rater_id", "other_rater_id"]]) == ("llm_a", "llm_b")
    assert (
        pairs[(pairs.rater_id == "llm_f") & (pairs.other_rater_id != "llm_f")].mean_tau_b.abs()
        < 0.15
    ).all()
    summary = marts.execute(
        "select rater_id from marts.ranking_rater_summary where method = 'kemeny' "
        "order by closeness_rank"
    ).fetchall()
    assert [r[0] for r in summary] == ["llm_a", "llm_b", "llm_c", "llm_d", "llm_e", "llm_f"]
    contested = marts.execute(
        "select avg(case when cast(substr(scenario_id, 5) as integer) % 10 = 0 "
        "then kendall_w end), avg(case when cast(substr(scenario_id, 5) as integer) % 10 <> 0 "
        "then kendall_w end) from marts.ranking_scenario_controversy where method = 'kemeny'"
    ).fetchone()
    assert contested[0] < contested[1]


def test_sample_w_and_consensus(marts):
    frame = pd.read_csv(SAMPLE, dtype={"position": int})
    controversy = marts.sql("select * from marts.ranking_scenario_controversy").df()
    for scenario in ["scn_001", "scn_010", "scn_077"]:
        w = controversy[controversy.scenario_id == scenario].kendall_w.to_numpy()
        np.testing.assert_allclose(w, friedman_w(frame, scenario), atol=1e-12)
    a_matrix = marts.sql("select * from marts.ranking_rater_vs_consensus").df()
    assert len(a_matrix) == 6 * 150 * 3
    summary = marts.sql("select * from marts.ranking_rater_summary").df()
    row_means = a_matrix.groupby(["rater_id", "method"]).tau_b.mean()
    for row in summary.itertuples():
        assert row.mean_tau_b == pytest.approx(row_means[(row.rater_id, row.method)])


# --- a user seed --------------------------------------------------------------------------


def user_seed() -> list[tuple[str, str, str, str]]:
    """Scenario q1 has 4 tasks, q2 has 3, q3 has 4 (arbitrary ids); rater c missed q2."""
    good = {
        ("a", "q1"): ["w", "x", "y", "z"],
        ("b", "q1"): ["x", "w", "z", "y"],
        ("c", "q1"): ["z", "y", "x", "w"],
        ("a", "q2"): ["m2", "m1", "m3"],
        ("b", "q2"): ["m1", "m2", "m3"],
        ("a", "q3"): ["k1", "k2", "k3", "k4"],
        ("b", "q3"): ["k4", "k2", "k3", "k1"],
        ("c", "q3"): ["k1", "k3", "k2", "k4"],
        ("d", "q3"): ["k2", "k1", "k3", "k4"],
    }
    rows = [(r, q, str(p), t) for (r, q), order in good.items() for p, t in enumerate(order, 1)]
    rows += [  # rater d on q1: task repeated (and y missing)
        ("d", "q1", "1", "w"),
        ("d", "q1", "2", "w"),
        ("d", "q1", "3", "x"),
        ("d", "q1", "4", "z"),
    ]
    rows += [("d", "q2", "1", "m1"), ("d", "q2", "2", "m2"), ("d", "q2", "4", "m3")]  # gap
    rows += [("a", "q3", "5", "k9")]  # extra task: a's ranking of q3 is rejected
    rows += [("b", "q2", "2", "m2")]  # duplicate row: b's ranking of q2 is rejected
    return rows


@pytest.fixture(scope="module")
def user_warehouse(tmp_path_factory) -> Path:
    project = copy_project(tmp_path_factory.mktemp("ranking") / "project")
    seed = pd.DataFrame(user_seed(), columns=["rater_id", "scenario_id", "position", "task_id"])
    seed.to_csv(project / "seeds" / "ranking" / "ranking_rankings.csv", index=False)
    database = project.parent / "concord.duckdb"
    # everything the ranking seed feeds, and dq_quarantine with everything it reads
    run_dbt(
        [
            "build",
            "--select",
            "source:ranking_seeds.ranking_rankings+",
            "+dq_quarantine",
        ],
        project,
        database,
    )
    return database


def test_user_seed_quarantine_and_missing(user_warehouse):
    with duckdb.connect(str(user_warehouse), read_only=True) as con:
        reasons = con.sql(
            "select record_key, reason from intermediate.int_ranking_rankings_quarantined"
        ).fetchall()
        missing = con.sql(
            "select rater_id, scenario_id, reason "
            "from intermediate.int_ranking_missing_rankings_listed order by 1, 2"
        ).fetchall()
    text = {reason for _, reason in reasons}
    assert "task repeated in the ranking" in text
    assert "scenario task missing from the ranking (gap)" in text
    assert any(reason.startswith("position outside") for reason in text)
    assert any(reason.startswith("extra task") for reason in text)
    assert any(reason.startswith("duplicate row") for reason in text)
    assert [(r, q) for r, q, _ in missing] == [
        ("a", "q3"),
        ("b", "q2"),
        ("c", "q2"),
        ("d", "q1"),
        ("d", "q2"),
    ]
    assert dict(((r, q), why) for r, q, why in missing)[("c", "q2")] == "no ranking in the seed"


def test_user_seed_marts_use_only_valid_rankings(user_warehouse):
    valid = pd.DataFrame(user_seed(), columns=["rater_id", "scenario_id", "position", "task_id"])
    rejected = {("d", "q1"), ("d", "q2"), ("a", "q3"), ("b", "q2")}
    keys = list(zip(valid.rater_id, valid.scenario_id, strict=True))
    valid = valid[[k not in rejected for k in keys]].astype({"position": int})
    expected = scipy_pair_means(valid)
    with duckdb.connect(str(user_warehouse), read_only=True) as con:
        pairs = con.sql("select * from marts.ranking_pair_kendall").df()
        consensus = con.sql("select * from marts.ranking_consensus").df()
        controversy = con.sql("select * from marts.ranking_scenario_controversy").df()
    for row in pairs.itertuples():
        if (row.rater_id, row.other_rater_id) in expected:
            mean, n = expected[(row.rater_id, row.other_rater_id)]
            assert row.n_scenarios == n
            assert row.mean_tau_b == pytest.approx(mean, abs=1e-12, nan_ok=True)
    by_pair = pairs.set_index(["rater_id", "other_rater_id"])
    assert by_pair.loc[("a", "c"), "n_scenarios"] == 1  # a's q3 rejected, c missed q2
    assert by_pair.loc[("a", "d"), "n_scenarios"] == 0  # no shared valid scenario
    assert np.isnan(by_pair.loc[("a", "d"), "mean_tau_b"])
    # Consensus orders are permutations of each scenario's own tasks (3 or 4 of them).
    sizes = consensus.groupby(["scenario_id", "method"]).task_id.nunique()
    assert sizes.xs("q2", level="scenario_id").eq(3).all()
    assert sizes.xs("q1", level="scenario_id").eq(4).all()
    w = controversy.set_index(["scenario_id", "method"]).kendall_w
    assert w[("q3", "kemeny")] == pytest.approx(friedman_w(valid, "q3"))
    assert np.isnan(w[("q2", "kemeny")])  # a single valid rater: W undefined
