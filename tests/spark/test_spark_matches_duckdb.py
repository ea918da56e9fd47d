"""The `spark` target builds every model and runs each kind of dbt data test on a local Spark,
and every table it builds equals the DuckDB build's (where every data test passes), value by
value (floats to 1e-9 relative: the engines sum in different orders). The unit tests run on
Spark in test_spark_cluster.py."""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
import yaml

from concord_common.probe_landing import SCHEMAS as PROBE_SCHEMAS
from concord_io.landing.engine import Landing, keep_placeholders
from concord_io.project import PROJECT_ROOT, run_dbt
from concord_io.spark import table_select

PASSED = {"success", "pass"}


def test_every_model_and_test_passes_on_spark(builds):
    # exposures are listed as no-op (nothing runs for them), and the on-run-start/-end hooks
    # as operations: neither is a node of the manifest
    results = [
        r
        for r in builds.spark_results
        if not r["unique_id"].startswith(("exposure.", "operation."))
    ]
    failed = [
        f"{r['unique_id']}: {r['status']} {(r.get('message') or '')[:300]}"
        for r in results
        if r["status"] not in PASSED
    ]
    assert not failed, "\n".join(failed)
    built = {r["unique_id"] for r in results}
    nodes = builds.duckdb_manifest["nodes"]
    chosen = [nodes[uid] for uid in builds.spark_data_tests]
    expected = {uid for uid, node in nodes.items() if node["resource_type"] == "model"} | set(
        builds.spark_data_tests
    )
    assert built == expected
    # each kind: every generic test and every singular test of the project
    kinds = {(n.get("test_metadata") or {}).get("name") or n["name"] for n in chosen}
    tests = [n for n in nodes.values() if n["resource_type"] == "test"]
    assert kinds == {(n.get("test_metadata") or {}).get("name") or n["name"] for n in tests}
    assert {"not_null", "unique_combination_of_columns", "value_between"} < kinds


def test_python_models_run_on_spark_and_plain_dbt_spark_names_the_command_that_does(builds):
    """The build's Python models ran on its SparkSession (their tables equal DuckDB's:
    test_every_table_equals_duckdbs), nothing loaded from a DuckDB build; without the
    session method, plain dbt-spark refuses a Python model in one line naming the command
    that runs it."""
    assert "is a dbt Python model" not in builds.spark_log
    python_models = [
        node["name"]
        for node in builds.duckdb_manifest["nodes"].values()
        if node["resource_type"] == "model" and node["language"] == "python"
    ]
    assert len(python_models) >= 9
    result = run_dbt(
        ["run", "--target", "spark", "--select", "int_mcq_accuracy_pooled"],
        PROJECT_ROOT,
        builds.spark_database,
        extra_env=builds.spark_env,
        check=False,
    )
    assert result.returncode != 0
    assert (
        "int_mcq_accuracy_pooled is a dbt Python model: plain dbt-spark runs Python models only "
        "on Databricks; `concord build --target spark` runs it on this Spark session"
    ) in " ".join(result.stdout.split())


def _tables(manifest: dict) -> list[tuple[str, str]]:
    return sorted(
        (node["schema"], node.get("alias") or node["name"])  # a version's relation: its alias
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model" and node["config"]["materialized"] != "view"
    )


def _value(value):
    """One cell, normalised so that the two engines' Python values compare equal."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if value is pd.NaT:
        return None
    if isinstance(value, pd.Timestamp):
        stamp = value.tz_convert("UTC") if value.tzinfo else value.tz_localize("UTC")
        return stamp.isoformat()
    if isinstance(value, list | tuple | np.ndarray):
        return tuple(_value(v) for v in value)
    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if isinstance(value, np.integer | int):
        return int(value)
    if isinstance(value, np.floating | float):
        return float(value)
    return str(value)


def _rows(frame: pd.DataFrame) -> list[tuple]:
    """Rows in a canonical order: sorted by every column, floats rounded for the sort only."""
    rows = [tuple(_value(v) for v in row) for row in frame.itertuples(index=False)]

    def key(row):
        return tuple(
            (0, "") if v is None else (1, f"{v:.6e}" if isinstance(v, float) else repr(v))
            for v in row
        )

    return sorted(rows, key=key)


def _close(left, right) -> bool:
    if isinstance(left, float) or isinstance(right, float):
        if left is None or right is None:
            return left is right
        return math.isclose(left, right, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(left, tuple) and isinstance(right, tuple):
        return len(left) == len(right) and all(map(_close, left, right))
    return left == right


def marts_differing(database: Path, duckdb_build: Path, at_least: int = 30) -> list[str]:
    """The marts of ``database`` (Spark's build, mirrored or published) whose rows differ
    from the DuckDB build's, value by value (the bookkeeping columns and dq_ tables aside)."""
    differing = []
    with (
        duckdb.connect(str(database), read_only=True) as spark,
        duckdb.connect(str(duckdb_build), read_only=True) as duck,
    ):
        marts = duck.sql(
            "select table_name from information_schema.tables where table_schema = 'marts' "
            "and table_name not like 'dq_%' order by all"
        ).fetchall()
        assert len(marts) >= at_least
        for (name,) in marts:
            got, expected = (
                _rows(con.sql(f"select * from marts.{name}").df().drop(
                    columns=VERSION_COLUMNS, errors="ignore"))
                for con in (spark, duck)
            )  # fmt: skip
            same = len(got) == len(expected) and all(
                all(map(_close, g, e)) for g, e in zip(got, expected, strict=True)
            )
            if not same:
                differing.append(name)
    return differing


# The incremental models' bookkeeping: a file's (or a Python model's group's) version carries
# the build's context, which the dbt plugin computes on DuckDB (concord_io/build_context.py);
# the Spark build of these tests is given none and carries its invocation id (every run
# computed again).
VERSION_COLUMNS = ["file_version", "input_version", "group_version"]


def test_every_table_equals_duckdbs(builds):
    tables = _tables(builds.duckdb_manifest)
    assert len(tables) >= 60
    differences = []
    with duckdb.connect(str(builds.duckdb), read_only=True) as duck:
        for schema, name in tables:
            folder = builds.spark_dir / f"{schema}.db" / name
            if not folder.is_dir():
                differences.append(f"{schema}.{name}: not built on Spark")
                continue
            expected = duck.sql(f"select * from {schema}.{name}").df()
            expected = expected.drop(columns=VERSION_COLUMNS, errors="ignore")
            select = table_select(folder)
            if select is None:
                # Spark may write no file for a table without rows
                if len(expected):
                    differences.append(f"{name}: no rows on Spark, {len(expected)} on DuckDB")
                continue
            got = duckdb.sql(select).df().drop(columns=VERSION_COLUMNS, errors="ignore")
            partitioned = any(folder.glob("*=*"))
            if partitioned and set(got.columns) == set(expected.columns):
                got = got[list(expected.columns)]  # Spark puts a partition column last
            if list(got.columns) != list(expected.columns):
                differences.append(f"{name}: columns {list(got.columns)} != {list(expected)}")
                continue
            got_rows, expected_rows = _rows(got), _rows(expected)
            if len(got_rows) != len(expected_rows):
                differences.append(f"{name}: {len(got_rows)} rows != {len(expected_rows)}")
                continue
            for got_row, expected_row in zip(got_rows, expected_rows, strict=True):
                if not all(map(_close, got_row, expected_row)):
                    differences.append(f"{name}: {got_row} != {expected_row}")
                    break
    assert not differences, "\n".join(differences)


@pytest.mark.parametrize("mart", ["mcq_agreement_summary_v2", "rater_agreement_summary"])
def test_marts_are_not_empty(builds, mart):
    folder = builds.spark_dir / "marts.db" / mart
    count = duckdb.sql(f"select count(*) from read_parquet('{folder}/*.parquet')").fetchall()
    assert count[0][0] > 0


# Rows that break a mart's constraints, as Spark SQL subqueries: on DuckDB the insert fails;
# on Spark (Parquet, not enforced by dbt-spark) macros/cross_db/constraints.sql must fail
# the model with the same rule named.
PLANTED = {
    "metricflow_time_spine": (
        "(select * from values (date'2020-01-01'), (date'2020-01-01'), (null) as t(date_day))",
        [
            "primary_key(date_day) has nulls: 1 row(s)",
            "primary_key(date_day) has duplicates: 1 row(s)",
        ],
    ),
    "ranking_pair_kendall": (
        "(select * from values ('a', 'b', 1, 0.5, 0.4, 0.6), ('a', 'b', 2, 0.5, 0.4, 0.6),"
        " ('a', null, null, 0.5, 0.6, 0.7), ('c', 'd', 1, 2.0, 0.4, 0.6)"
        " as t(rater_id, other_rater_id, n_scenarios, mean_tau_b, ci_low, ci_high))",
        [
            "not_null(other_rater_id): 1 row(s)",
            "not_null(n_scenarios): 1 row(s)",
            "primary_key(rater_id, other_rater_id) has duplicates: 1 row(s)",
            "check(mean_tau_b between -1 - 1e-9 and 1 + 1e-9): 1 row(s)",
            "check(ci_low <= mean_tau_b + 1e-9 and mean_tau_b <= ci_high + 1e-9): 2 row(s)",
        ],
    ),
}


@pytest.mark.parametrize("model", sorted(PLANTED))
def test_a_broken_constraint_fails_on_spark_naming_the_rule(builds, model):
    relation, expected = PLANTED[model]
    args = yaml.safe_dump({"model": model, "relation": relation}, width=10_000)
    result = run_dbt(
        ["run-operation", "check_constraints", "--args", args, "--target", "spark"],
        PROJECT_ROOT,
        builds.spark_database,
        extra_env=builds.spark_env,
        check=False,
    )
    assert result.returncode != 0
    for rule in expected:
        assert rule in result.stdout, result.stdout[-3000:]


def test_constraints_that_hold_pass_on_spark(builds):
    result = run_dbt(
        [
            "run-operation",
            "check_constraints",
            "--target",
            "spark",
            "--args",
            "{model: metricflow_time_spine, relation: \"(select date'2020-01-01' as date_day)\"}",
        ],
        PROJECT_ROOT,
        builds.spark_database,
        extra_env=builds.spark_env,
    )
    assert "metricflow_time_spine: every constraint holds" in result.stdout


def test_before_the_first_probe_run_the_probe_landing_reads_empty_on_spark(spark, tmp_path):
    """Spark's reader refuses a glob that matches nothing; the landing keeps the area's empty
    tables (run_id=_empty) until a probe run lands, so the probe's staging, which reads each
    table as this query does (macros/cross_db/landing.sql), reads no rows, typed."""
    landing = tmp_path / "landing"
    with Landing(landing) as writing:
        keep_placeholders(writing)  # what every landing does (test_landing_reader)
    assert sorted(p.name for p in (landing / "probe").iterdir()) == ["run_id=_empty"]
    for table, schema in PROBE_SCHEMAS.items():
        frame = spark.sql(f"select * from parquet.`{landing}/probe/run_id=*/{table}.parquet`")
        assert frame.count() == 0 and frame.columns == schema.names, table


def test_a_later_dbt_call_finds_the_tables_of_an_earlier_one(builds):
    """The catalogue persists between dbt calls (Spark's Hive metastore on Derby in the
    Spark folder): a model and a Python model built alone read the tables the whole build
    made, as `concord build --target spark` calls dbt."""
    from concord_io.spark import python_models_in_session

    with python_models_in_session():
        result = run_dbt(
            [
                "run",
                "--target",
                "spark",
                "--select",
                "int_mcq_accuracy_pooled",
                "mcq_agreement_summary_v2",
            ],  # fmt: skip
            PROJECT_ROOT,
            builds.spark_database,
            extra_env=builds.spark_env,
            check=False,
        )
    assert result.returncode == 0, result.stdout[-3000:]
    assert (builds.spark_dir / "metastore_db").is_dir()


def test_the_spark_build_mirrored_is_published_as_a_duckdb_build_is(builds, tmp_path):
    """Spark's tables mirrored into one DuckDB file (concord_io.spark.mirror): every table
    Spark wrote, with its rows; publish makes of it the same serving file and Parquet a
    DuckDB build gives, every mart equal to the DuckDB build's."""
    from concord_io.serving.publish import publish
    from concord_io.spark import mirror, spark_tables

    database = tmp_path / "concord_spark.duckdb"
    assert mirror(builds.spark_dir, database) == len(spark_tables(builds.spark_dir)) >= 60
    published = publish(database, tmp_path / "serving", skip_quality_gate=True)
    assert not marts_differing(published.database, builds.duckdb)
