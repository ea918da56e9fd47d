"""dbt's semantic layer (models/marts/semantic/): dbt parses the semantic models and metrics
into semantic_manifest.json, and MetricFlow (`mf query`) answers the headline metrics with
the values of the marts, read here straight from the build database."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from concord_io.project import copy_project

HEADLINE_METRICS = {
    "full_agreement_rate",
    "items",
    "option_share_pct",
    "fleiss_kappa",
    "krippendorff_alpha",
    "mean_tau_b",
    "probe_mean_delta",
}
MF = Path(sys.executable).parent / "mf"


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
    out = project / "out.csv"
    env = {
        **os.environ,
        "CONCORD_DB_PATH": str(database),
        "DBT_PROFILES_DIR": str(project),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    env.pop("DBT_TARGET_PATH", None)
    subprocess.run(
        [str(MF), "query", "--metrics", metrics, "--group-by", group_by, "--csv", str(out)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    with out.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_metricflow_answers_full_agreement_rate_as_the_mart_does(warehouse, tmp_path):
    project = copy_project(tmp_path / "project")
    database = tmp_path / "concord.duckdb"
    shutil.copy(warehouse, database)  # MetricFlow opens the database; keep the shared one clean
    # mf reads the semantic manifest that dbt wrote when it parsed the project
    (project / "target").mkdir()
    shutil.copy(warehouse.parent / "target" / "semantic_manifest.json", project / "target")
    rows = mf_query(project, database, "full_agreement_rate,items", "mcq_item__model,mcq_item__run")
    got = {
        (r["mcq_item__model"], r["mcq_item__run"]): (
            float(r["full_agreement_rate"]),
            int(r["items"]),
        )
        for r in rows
    }
    with duckdb.connect(str(database), read_only=True) as con:
        want = {
            (model, run): (pct / 100, n)
            for model, run, pct, n in con.execute(
                "select model, run, agreement_pct, n_items from marts.mcq_agreement_summary"
            ).fetchall()
        }
    assert got.keys() == want.keys()
    for key, (rate, n) in want.items():
        assert got[key][0] == pytest.approx(rate, abs=1e-12), key
        assert got[key][1] == n, key
