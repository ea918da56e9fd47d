"""One DuckDB build and one Spark build of the shipped seeds (plus two fake probe runs and
two lm-eval runs with gold), shared by every Spark test, and one local SparkSession for the
tests that call the Python models. Small data and few resamples keep `make test-spark`
inside CI's time.

The seed files and the cross-lingual study's inputs are landed first (concord_io.landing):
dbt-spark has no dbt-duckdb plugin to land them before its build (docs/spark.md), and both
builds read the same landing."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from concord_io.landing import land
from concord_io.project import NO_DATA_TESTS, PROJECT_ROOT, copy_project, run_dbt
from concord_io.spark import python_models_in_session

# Few resamples: the comparisons are exact whatever the number, the build is faster.
VARS = "{bootstrap_resamples: 200, probe_permutations: 200}"


@dataclass(frozen=True)
class Builds:
    duckdb: Path  # the DuckDB build database
    duckdb_manifest: dict
    spark_dir: Path  # Spark's warehouse folder: <schema>.db/<table>/ Parquet files
    spark_results: list[dict]  # run_results.json of `dbt build --target spark`
    spark_log: str
    spark_env: dict[str, str]  # what `dbt ... --target spark` ran with
    spark_database: Path  # places target/ and logs/ of the Spark runs
    spark_data_tests: list[str]  # the data tests run on Spark: one of each kind


def _land_fake_probe_run(landing: Path) -> None:
    sys.path.insert(0, str(PROJECT_ROOT / "tests" / "python"))
    from probe_fakes import fake_run_tables

    from probe.landing import land_run
    from probe.stimuli import load_design

    design = load_design(PROJECT_ROOT / "seeds" / "probe")
    # two runs over one design: the model comparison (pairs of runs) has rows to compare
    land_run(landing, "run-spark", fake_run_tables(design, "run-spark", seed=7))
    land_run(landing, "run-spark-b", fake_run_tables(design, "run-spark-b", seed=8))


def _add_gold_runs(project: Path) -> None:
    """Two models' lm-eval sample logs with a target (task xgold, the study's languages,
    three items each): the shipped items have no gold, and the models graded against it
    (accuracy, calibration, the models compared on accuracy) need rows to compare."""
    sources = project / "seeds" / "mcq" / "answer_sources" / "lm_eval"
    lines = []
    for model, offset in (("LM A", 0), ("LM B", 1)):
        folder = sources / model.replace(" ", "_")
        folder.mkdir(parents=True)
        for language in ("en", "it", "fa"):
            samples = []
            for doc in range(3):
                lls = [-1.0 - 0.5 * ((doc + i + offset) % 4) for i in range(4)]
                texts = [" " + "x" * (i + 1) for i in range(4)]
                sample = {
                    "doc_id": doc,
                    "target": doc % 4,
                    "arguments": {
                        f"gen_args_{i}": {"arg_0": f"q ({language})", "arg_1": t}
                        for i, t in enumerate(texts)
                    },
                    "resps": [[[str(ll), "False"]] for ll in lls],
                    "filtered_resps": [[str(ll), "False"] for ll in lls],
                }
                samples.append(json.dumps(sample))
            name = f"samples_xgold_{language}_2025-05-05T10-00-00.123456.jsonl"
            (folder / name).write_text("\n".join(samples) + "\n", encoding="utf-8")
            lines.append(
                f"lm_eval/{folder.name}/samples_xgold_{language}_*.jsonl,lm_eval,{model},base,"
                f"{language},,,,\n"
            )
    registry = project / "seeds" / "mcq" / "mcq_answer_sources.csv"
    registry.write_text(registry.read_text() + "".join(lines))


def one_test_of_each_kind(manifest: dict) -> list[dict]:
    """The first data test (by id) of each generic test, and every singular test."""
    chosen: dict[str, dict] = {}
    for uid, node in sorted(manifest["nodes"].items()):
        if node["resource_type"] == "test" and node["package_name"] == "concord":
            kind = (node.get("test_metadata") or {}).get("name") or uid
            chosen.setdefault(kind, node)
    return list(chosen.values())


@pytest.fixture(scope="session")
def builds(tmp_path_factory) -> Builds:
    work = tmp_path_factory.mktemp("spark")
    # the shipped seeds and two lm-eval runs with gold: both builds read this copy's landing
    project = copy_project(work / "project")
    _add_gold_runs(project)
    landing = work / "landing"
    _land_fake_probe_run(landing)
    land(project, landing)
    env = {"CONCORD_LANDING_DIR": str(landing)}

    duck = work / "duckdb" / "concord.duckdb"
    duck.parent.mkdir()
    # tables only: every data and unit test runs on the session's shared warehouse (the same
    # models, the default resamples); Spark's tables are compared with these value by value,
    # so on Spark each kind of test needs to run only once (below)
    run_dbt(["build", "--vars", VARS, *NO_DATA_TESTS], project, duck, extra_env=env, artifacts=True)
    manifest_path = duck.parent / "target" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())

    spark_work = work / "spark"
    spark_work.mkdir()
    spark_env = {**env, "CONCORD_SPARK_DIR": str(spark_work / "warehouse")}
    # every model and one data test of each kind (each generic test, each singular test):
    # its SQL as compiled for Spark runs and passes; the data tests' verdicts on these tables
    # are DuckDB's, on equal tables. (The unit tests run on Spark in the cluster test, which
    # CI runs after make test: test_spark_cluster.py.) The database argument only places
    # target/ and logs/ beside it.
    data_tests = one_test_of_each_kind(manifest)
    # the Python models run on the build's SparkSession, reading Spark's own tables, as
    # `concord build --target spark` runs them (concord_io.spark.py)
    with python_models_in_session():
        result = _spark_build(project, spark_work, spark_env, data_tests)
    run_results = json.loads((spark_work / "target" / "run_results.json").read_text())
    return Builds(
        duckdb=duck,
        duckdb_manifest=manifest,
        spark_dir=spark_work / "warehouse",
        spark_results=run_results["results"],
        spark_log=result.stdout,
        spark_env=spark_env,
        spark_database=spark_work / "unused.duckdb",
        spark_data_tests=[node["unique_id"] for node in data_tests],
    )


def _spark_build(project: Path, spark_work: Path, spark_env: dict, data_tests: list[dict]):
    selection = ["resource_type:model", *(node["name"] for node in data_tests)]
    return run_dbt(
        [
            "build",
            "--target",
            "spark",
            "--vars",
            VARS,
            "--select",
            *selection,
            "--indirect-selection",
            "empty",
        ],  # fmt: skip
        project,
        spark_work / "unused.duckdb",
        extra_env=spark_env,
        check=False,
        artifacts=True,
    )


@pytest.fixture(scope="session")
def spark():
    """One local SparkSession for the whole session (starting one costs seconds)."""
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[1]")
        .appName("concord-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.catalogImplementation", "in-memory")
        .getOrCreate()
    )
    yield session
    session.stop()
