"""dbt's semantic layer (models/marts/semantic/): dbt parses the semantic models and metrics
into semantic_manifest.json, and MetricFlow (`mf query`) answers the headline metrics with
the values of the marts, read here straight from the build database."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import duckdb
import pytest

from concord_io.project import copy_project

HEADLINE_METRICS = {
    "full_agreement_pct",
    "full_agreement_ci_low",
    "full_agreement_ci_high",
    "fleiss_kappa_ci_low",
    "fleiss_kappa_ci_high",
    "items",
    "option_share_pct",
    "fleiss_kappa",
    "krippendorff_alpha",
    "mean_tau_b",
    "probe_mean_delta",
    "accuracy_pct",
    "accuracy_norm_pct",
    "brier_score",
    "expected_calibration_error",
}


def test_dbt_parses_the_semantic_models_and_metrics(warehouse):
    # the session's dbt build parsed the project: semantic_manifest.json is dbt's own output
    semantic = json.loads((warehouse.parent / "target" / "semantic_manifest.json").read_text())
    metrics = {m["name"] for m in semantic["metrics"]}
    assert HEADLINE_METRICS <= metrics
    models = {m["name"]: m["node_relation"] for m in semantic["semantic_models"]}
    assert {r["schema_name"] for r in models.values()} == {"marts"}
    assert semantic["project_configuration"]["time_spines"], "no time spine"
    with duckdb.connect(str(warehouse), read_only=True) as con:
        for relation in models.values():
            con.execute(f'select 1 from marts."{relation["alias"]}" limit 1')  # exists


def mf_query(project: Path, database: Path, metrics: str, group_by: str) -> list[dict]:
    """`mf query ... --csv` as MetricFlow's command line runs it, in this process (its
    imports and adapter set-up are paid once, not per query: 0.1 s a query instead of 3.7 s)."""
    from click.testing import CliRunner
    from dbt_metricflow.cli.main import cli

    from concord_io.dbt_sequence import close_duckdb
    from concord_io.project import _environment

    out = project / "out.csv"
    env = {
        "CONCORD_DB_PATH": str(database),
        "DBT_PROFILES_DIR": str(project),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    grouping = ["--group-by", group_by] if group_by else []
    with _environment(env, project):
        try:
            ran = CliRunner().invoke(
                cli, ["query", "--metrics", metrics, *grouping, "--csv", str(out)]
            )
        finally:
            close_duckdb()  # MetricFlow opened the database through dbt-duckdb
    assert ran.exit_code == 0, (ran.output, ran.exception)
    with out.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def mf_project(warehouse, tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("metricflow")
    project = copy_project(tmp / "project")
    database = tmp / "concord.duckdb"
    shutil.copy(warehouse, database)  # MetricFlow opens the database; keep the shared one clean
    # mf reads the semantic manifest that dbt wrote when it parsed the project
    (project / "target").mkdir()
    shutil.copy(warehouse.parent / "target" / "semantic_manifest.json", project / "target")
    return project, database


def test_metricflow_answers_full_agreement_as_the_mart_does(mf_project):
    """Percentages as every mart gives them (0-100), each with its interval, and the item
    counts of the item-level fact."""
    project, database = mf_project
    rows = mf_query(
        project,
        database,
        "full_agreement_pct,full_agreement_ci_low,full_agreement_ci_high",
        "mcq_model_run__model,mcq_model_run__variant,mcq_model_run__task",
    )
    got = {
        (r["mcq_model_run__model"], r["mcq_model_run__variant"], r["mcq_model_run__task"]): tuple(
            float(r[m])
            for m in ("full_agreement_pct", "full_agreement_ci_low", "full_agreement_ci_high")
        )
        for r in rows
    }
    items = mf_query(project, database, "items", "mcq_item__model,mcq_item__variant,mcq_item__task")
    with duckdb.connect(str(database), read_only=True) as con:
        want = {
            (model, variant, task): (pct, low, high, n)
            for model, variant, task, pct, low, high, n in con.execute(
                "select model, variant, task, full_agreement_pct, full_agreement_ci_low, "
                "full_agreement_ci_high, n_items from marts.mcq_agreement_summary_v2"
            ).fetchall()
        }
    assert got.keys() == want.keys()
    for key, (pct, low, high, _) in want.items():
        assert got[key] == pytest.approx((pct, low, high), abs=1e-9), key
    assert {
        (r["mcq_item__model"], r["mcq_item__variant"], r["mcq_item__task"]): int(r["items"])
        for r in items
    } == {key: n for key, (*_, n) in want.items()}


def test_a_per_group_statistic_is_never_averaged_over_groups(mf_project):
    """Fleiss' kappa of twelve datasets does not average into a figure: ungrouped, or over
    several model-runs, the metric is null; grouped to one dataset it is the mart's value."""
    project, database = mf_project
    (ungrouped,) = mf_query(project, database, "fleiss_kappa,rater_datasets", "")
    assert int(ungrouped["rater_datasets"]) > 1 and ungrouped["fleiss_kappa"] == ""
    per_model = mf_query(project, database, "full_agreement_pct", "mcq_model_run__model")
    shuffled = {"GPT-4o", "LLaMA 3.1 70B"}  # the models with a base and a shuffled run
    assert {r["mcq_model_run__model"] for r in per_model if r["full_agreement_pct"] == ""} == (
        shuffled
    )
    grouped = mf_query(project, database, "fleiss_kappa", "rater_dataset")
    with duckdb.connect(str(database), read_only=True) as con:
        want = dict(
            con.execute(
                "select dataset, fleiss_kappa from marts.rater_agreement_summary"
            ).fetchall()
        )
    got = {r["rater_dataset"]: float(r["fleiss_kappa"]) for r in grouped}
    assert got == pytest.approx(want)
