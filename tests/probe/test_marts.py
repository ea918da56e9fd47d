"""End to end: probe runs land, dbt builds the probe marts, and every mart equals an
independent pandas / scipy computation from the landed scores. Also: dbt build works before
any probe run (empty marts), and hidden leftovers of a killed run are never read. (The six CSV
files of the reference are written by `concord export --probe-csv`: tests/python.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy import stats
from scipy.special import softmax

from concord_io.project import PROJECT_ROOT, run_dbt
from concord_stats.bootstrap import derive_seed
from probe.__main__ import main

BASELINE = "US"
RESAMPLES, CONFIDENCE, SEED = 2000, 0.95, 20250505
INDICES = ["index_reliable_like", "index_unreliable_like", "index_rel_minus_unrel"]
MARTS = [
    "probe_indices_per_name",
    "probe_indices_group_avg",
    "probe_delta_vs_baseline",
    "probe_summary_per_name",
    "probe_summary_group_avg",
    "probe_paired_summary",
    "probe_model_comparison",
]


def _dbt_build(landing: Path, db: Path) -> None:
    """Build the probe's models into ``db`` (target and logs beside it)."""
    selection = [
        "path:models/staging/probe+",
        "path:models/intermediate/probe+",
    ]
    variables = f"{{bootstrap_resamples: {RESAMPLES}, bootstrap_seed: {SEED}}}"
    run_dbt(
        # dq_quarantine also reads the other studies: the test reads the probe's own part
        # (and the scorecard reads every study's marts)
        [
            "build",
            "--select",
            *selection,
            "--exclude",
            "dq_quarantine",
            "path:models/marts/scorecard",
            "--vars",
            variables,
        ],  # fmt: skip
        PROJECT_ROOT,
        db,
        extra_env={"CONCORD_LANDING_DIR": str(landing)},
    )


def _marts(db: Path) -> dict[str, pd.DataFrame]:
    with duckdb.connect(str(db), read_only=True) as con:
        return {m: con.execute(f"select * from marts.{m}").df() for m in MARTS}


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory, tiny_model_dirs):
    tmp = tmp_path_factory.mktemp("warehouse")
    landing, db = tmp / "landing", tmp / "concord.duckdb"
    _dbt_build(landing, db)  # before any probe run
    empty = _marts(db)
    common = ["--landing-dir", str(landing), "--no-progress", "--device", "cpu"]
    assert main(["demo", *common, "--model-dir", str(tmp / "demo_model")]) == 0
    assert (
        main(
            [
                "run",
                *common,
                "--model",
                str(tiny_model_dirs["llama_bos"]),
                "--run-id",
                "llama_bos",
                "--batch-size",
                "7",
            ]
        )
        == 0
    )
    # what a killed run leaves behind: a hidden folder the readers must ignore
    shutil.copytree(landing / "probe" / "run_id=demo", landing / "probe" / ".tmp-run_id=ghost")
    # what a hand-edited or foreign landing may hold: quarantined, never in the marts
    _land_foreign(landing, "evil", {"run_id": "../../x"})
    _land_foreign(landing, "unknown-group", {"group_name": "ZZ"}, table="stimuli")
    _dbt_build(landing, db)
    accepted = ["run_id=demo", "run_id=llama_bos"]
    scores = pd.concat(pd.read_parquet(landing / "probe" / f / "scores.parquet") for f in accepted)
    runs = pd.concat(pd.read_parquet(landing / "probe" / f / "runs.parquet") for f in accepted)
    return {
        "empty": empty,
        "marts": _marts(db),
        "scores": scores,
        "runs": runs,
        "db": db,
        "tmp": tmp,
    }


def _land_foreign(landing: Path, folder_run_id: str, values: dict, table: str | None = None):
    """Copy the demo run into run_id=<folder_run_id> (its run_id column too) with ``values``
    set in every row of ``table`` (default: all), bypassing the probe's writer as a foreign
    file would."""
    source, target = (
        landing / "probe" / "run_id=demo",
        landing / "probe" / f"run_id={folder_run_id}",
    )
    target.mkdir()
    for path in source.iterdir():
        frame = pq.read_table(path)
        changes = {"run_id": folder_run_id}
        if table in (None, path.stem):
            changes.update(values)
        for column, value in changes.items():
            index = frame.schema.get_field_index(column)
            frame = frame.set_column(
                index,
                column,
                pa.array([value] * frame.num_rows, frame.schema.field(column).type),
            )
        pq.write_table(frame, target / path.name)


def test_foreign_runs_are_quarantined_not_counted(warehouse):
    with duckdb.connect(str(warehouse["db"]), read_only=True) as con:
        rows = con.execute(
            "select record_key, column_name, value, reason "
            "from intermediate.int_probe_runs_quarantined order by record_key, reason"
        ).fetchall()
        accepted = con.execute("select run_id from intermediate.int_probe_runs_accepted").fetchall()
    assert sorted(accepted) == [("demo",), ("llama_bos",)]
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("evil", "run_id", "../../x"),
        ("evil", "run_id", "../../x"),
        ("unknown-group", "group_name", "ZZ"),
    ]
    assert "differs from its folder run_id=evil" in rows[0][3]
    assert "not a valid run id" in rows[1][3]
    assert rows[2][3].startswith("group_name not in seed probe_names (80 row(s))")


def test_build_before_any_run_gives_empty_marts(warehouse):
    for name, frame in warehouse["empty"].items():
        assert frame.empty, name
        assert list(frame.columns) == list(warehouse["marts"][name].columns)


def _interval_and_test(d: np.ndarray, *key) -> dict:
    """Percentile bootstrap of the mean (messages resampled, the seed derived as the model
    derives it) and scipy's exact paired permutation test, independently of concord_stats."""
    rng = np.random.default_rng(derive_seed(SEED, *key))
    means = d[rng.integers(0, len(d), size=(RESAMPLES, len(d)))].mean(axis=1)
    test = stats.permutation_test(
        (d,),
        lambda x, axis: np.mean(x, axis=axis),
        vectorized=True,
        permutation_type="samples",
        n_resamples=np.inf,
        alternative="two-sided",
    )
    return {
        "n_messages": len(d),
        "ci_low": np.quantile(means, 0.025),
        "ci_high": np.quantile(means, 0.975),
        "confidence": CONFIDENCE,
        "n_resamples": RESAMPLES,
        "p_value": test.pvalue,
        "p_value_mc_error": 0.0,
        "n_permutations": 2 ** len(d),
        "permutation_exact": True,
    }


def _expected(scores: pd.DataFrame, runs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The reference's pipeline, written independently with pandas and scipy."""
    scores = scores.sort_values(["run_id", "stimulus_id", "candidate_id"]).copy()
    key = ["run_id", "stimulus_id"]
    scores["p"] = scores.groupby(key)["logprob"].transform(lambda lp: softmax(lp.to_numpy()))
    rows = []
    for (run_id, stimulus_id), s in scores.groupby(key):
        rel = s.loc[s.candidate_group == "reliable_like", "p"].sum()
        unrel = s.loc[s.candidate_group == "unreliable_like", "p"].sum()
        top = s.iloc[int(np.argmax(s["logprob"]))]  # first maximum: lowest candidate_id
        rows.append(
            {
                "run_id": run_id,
                "stimulus_id": stimulus_id,
                "msg_id": s.msg_id.iloc[0],
                "group_name": s.group_name.iloc[0],
                "sender_name": s.sender_name.iloc[0],
                "stimulus": s.stimulus.iloc[0],
                "index_reliable_like": rel,
                "index_unreliable_like": unrel,
                "index_rel_minus_unrel": rel - unrel,
                "top_choice": top.candidate,
                "p_top": top.p,
            }
        )
    per_name = pd.DataFrame(rows)
    group_avg = per_name.groupby(["run_id", "msg_id", "group_name"], as_index=False).agg(
        n_names=("sender_name", "size"), **{i: (i, "mean") for i in INDICES}
    )
    base = group_avg[group_avg.group_name == BASELINE][["run_id", "msg_id", *INDICES[2:]]]
    delta = group_avg[group_avg.group_name != BASELINE].merge(
        base, on=["run_id", "msg_id"], suffixes=("", "_base")
    )
    delta["baseline_group"] = BASELINE
    delta["baseline_index_rel_minus_unrel"] = delta.pop("index_rel_minus_unrel_base")
    delta["delta_vs_baseline"] = delta.index_rel_minus_unrel - delta.baseline_index_rel_minus_unrel

    def summary(frame):
        out = frame.groupby(["run_id", "group_name"])[INDICES].agg(["mean", "std", "count"])
        flat = pd.DataFrame({"n_rows": out[(INDICES[0], "count")]})
        for i in INDICES:
            flat[f"{i}_mean"], flat[f"{i}_std"] = out[(i, "mean")], out[(i, "std")]
        return flat.reset_index()

    models = runs.set_index("run_id")
    paired = []
    for (run_id, group), g in delta.sort_values("msg_id").groupby(["run_id", "group_name"]):
        d = g.delta_vs_baseline.to_numpy()
        paired.append(
            {
                "run_id": run_id,
                "model": models.model[run_id],
                "design_hash": models.design_hash[run_id],
                "group_name": group,
                "baseline_group": BASELINE,
                "mean_delta": d.mean(),
                "std_delta": d.std(ddof=1),
                "frac_negative": (d < 0).mean(),
                **_interval_and_test(d, run_id, group),
            }
        )
    # models side by side: every pair of runs, paired by message within each group
    compared = []
    run_ids = sorted(delta.run_id.unique())
    for a, b in [(a, b) for a in run_ids for b in run_ids if a < b]:
        for group in sorted(delta.group_name.unique()):
            pick = delta[delta.group_name == group].set_index(["run_id", "msg_id"])
            da = pick.loc[a].delta_vs_baseline.sort_index()
            db = pick.loc[b].delta_vs_baseline.sort_index()
            d = (da - db).to_numpy()
            compared.append(
                {
                    "design_hash": models.design_hash[a],
                    "group_name": group,
                    "run_id_a": a,
                    "model_a": models.model[a],
                    "run_id_b": b,
                    "model_b": models.model[b],
                    "mean_delta_a": da.mean(),
                    "mean_delta_b": db.mean(),
                    "mean_difference": d.mean(),
                    **_interval_and_test(d, a, b, group),
                }
            )
    return {
        "probe_indices_per_name": per_name,
        "probe_indices_group_avg": group_avg,
        "probe_delta_vs_baseline": delta,
        "probe_summary_per_name": summary(per_name),
        "probe_summary_group_avg": summary(group_avg),
        "probe_paired_summary": pd.DataFrame(paired),
        "probe_model_comparison": pd.DataFrame(compared),
    }


@pytest.fixture(scope="module")
def expected(warehouse) -> dict[str, pd.DataFrame]:
    return _expected(warehouse["scores"], warehouse["runs"])


@pytest.mark.parametrize("mart", MARTS)
def test_mart_equals_independent_pandas(warehouse, expected, mart):
    got = warehouse["marts"][mart]
    want = expected[mart]
    keys = [
        c for c in ("run_id", "run_id_a", "msg_id", "stimulus_id", "group_name") if c in got.columns
    ]
    got = got.sort_values(keys).reset_index(drop=True)
    want = want[list(got.columns)].sort_values(keys).reset_index(drop=True)
    # the hidden leftover and the quarantined runs were not read
    assert set(got.get("run_id", got.get("run_id_a"))) <= {"demo", "llama_bos"}
    assert len(got) == len(want) > 0
    pd.testing.assert_frame_equal(got, want, check_dtype=False, rtol=1e-9, atol=1e-12)


def test_row_counts(warehouse):
    marts = warehouse["marts"]
    assert len(marts["probe_indices_per_name"]) == 2 * 80
    assert len(marts["probe_indices_group_avg"]) == 2 * 40
    assert len(marts["probe_delta_vs_baseline"]) == 2 * 30
    assert len(marts["probe_paired_summary"]) == 2 * 3
    assert len(marts["probe_model_comparison"]) == 3  # one pair of runs, three groups


def test_the_demo_run_says_what_it_is(warehouse, tiny_model_dirs):
    """The demo's model is named as random weights, not as the path of its folder; another
    run by its folder's name, and as random weights too (probe.tiny marks the models it
    builds)."""
    models = dict(zip(warehouse["runs"]["run_id"], warehouse["runs"]["model"], strict=True))
    assert models == {
        "demo": "demo gpt2 (random weights — a pipeline check, not a finding)",
        "llama_bos": "llama_bos (random weights)",
    }
