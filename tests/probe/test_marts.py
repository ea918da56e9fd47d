"""End to end: probe runs land, dbt builds the probe marts, and every mart equals an
independent pandas / scipy computation from the landed scores. Also: dbt build works before
any probe run (empty marts), hidden leftovers of a killed run are never read, and export
writes the reference's six CSV files."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import softmax

from concord_io.paths import PROJECT_ROOT
from concord_io.project import run_dbt
from concord_stats.bootstrap import derive_seed
from probe.__main__ import main
from probe.export import EXPORTS

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
]


def _dbt_build(landing: Path, db: Path) -> None:
    """Build the probe's models into ``db`` (target and logs beside it)."""
    selection = [
        "path:seeds/probe",
        "path:models/staging/probe+",
        "path:models/intermediate/probe+",
    ]
    variables = f"{{bootstrap_resamples: {RESAMPLES}, bootstrap_seed: {SEED}}}"
    run_dbt(
        ["build", "--select", *selection, "--vars", variables],
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
    _dbt_build(landing, db)
    scores = pd.concat(
        pd.read_parquet(p) for p in sorted((landing / "probe").glob("run_id=*/scores.parquet"))
    )
    return {"empty": empty, "marts": _marts(db), "scores": scores, "db": db, "tmp": tmp}


def test_build_before_any_run_gives_empty_marts(warehouse):
    for name, frame in warehouse["empty"].items():
        assert frame.empty, name
        assert list(frame.columns) == list(warehouse["marts"][name].columns)


def _expected(scores: pd.DataFrame) -> dict[str, pd.DataFrame]:
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

    paired = []
    for (run_id, group), g in delta.sort_values("msg_id").groupby(["run_id", "group_name"]):
        d = g.delta_vs_baseline.to_numpy()
        rng = np.random.default_rng(derive_seed(SEED, run_id, group))
        means = d[rng.integers(0, len(d), size=(RESAMPLES, len(d)))].mean(axis=1)
        test = stats.permutation_test(
            (d,),
            lambda x, axis: np.mean(x, axis=axis),
            vectorized=True,
            permutation_type="samples",
            n_resamples=np.inf,
            alternative="two-sided",
        )
        paired.append(
            {
                "run_id": run_id,
                "group_name": group,
                "baseline_group": BASELINE,
                "n_messages": len(d),
                "mean_delta": d.mean(),
                "std_delta": d.std(ddof=1),
                "frac_negative": (d < 0).mean(),
                "ci_low": np.quantile(means, 0.025),
                "ci_high": np.quantile(means, 0.975),
                "confidence": CONFIDENCE,
                "n_resamples": RESAMPLES,
                "p_value": test.pvalue,
                "n_permutations": 2 ** len(d),
                "permutation_exact": True,
            }
        )
    return {
        "probe_indices_per_name": per_name,
        "probe_indices_group_avg": group_avg,
        "probe_delta_vs_baseline": delta,
        "probe_summary_per_name": summary(per_name),
        "probe_summary_group_avg": summary(group_avg),
        "probe_paired_summary": pd.DataFrame(paired),
    }


@pytest.fixture(scope="module")
def expected(warehouse) -> dict[str, pd.DataFrame]:
    return _expected(warehouse["scores"])


@pytest.mark.parametrize("mart", MARTS)
def test_mart_equals_independent_pandas(warehouse, expected, mart):
    got = warehouse["marts"][mart]
    want = expected[mart]
    keys = [c for c in ("run_id", "msg_id", "stimulus_id", "group_name") if c in got.columns]
    got = got.sort_values(keys).reset_index(drop=True)
    want = want[list(got.columns)].sort_values(keys).reset_index(drop=True)
    assert set(got.run_id) == {"demo", "llama_bos"}  # the hidden leftover was not read
    pd.testing.assert_frame_equal(got, want, check_dtype=False, rtol=1e-9, atol=1e-12)


def test_row_counts(warehouse):
    marts = warehouse["marts"]
    assert len(marts["probe_indices_per_name"]) == 2 * 80
    assert len(marts["probe_indices_group_avg"]) == 2 * 40
    assert len(marts["probe_delta_vs_baseline"]) == 2 * 30
    assert len(marts["probe_paired_summary"]) == 2 * 3


def test_export_writes_the_six_reference_files(warehouse):
    out = warehouse["tmp"] / "export"
    assert (
        main(["export", "--db", str(warehouse["db"]), "--run-id", "demo", "--out", str(out)]) == 0
    )
    assert sorted(p.name for p in out.iterdir()) == sorted(EXPORTS)
    per_name = pd.read_csv(out / "results_indices_reliability_per_name.csv")
    assert len(per_name) == 80 and {"group", "name"} <= set(per_name.columns)
    stimuli = pd.read_csv(out / "stimuli_ambiguous_10_two_names.csv")
    assert stimuli.text.str.startswith("Hi, I'm ").all()
