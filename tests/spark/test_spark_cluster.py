"""The same `concord build` on a real Spark cluster: a standalone master and two workers
started from the pip-installed Spark (`spark-class`, nothing downloaded), the spark target
pointed at the master (CONCORD_SPARK_MASTER), its executors in JVMs of their own writing
Parquet on the shared disk. The build passes, runs on both workers, and every mart equals
the DuckDB build's of the same project. The first Spark build lacks one run: the second,
with it added, writes that run's partitions of the incremental models and no other
partition's files, and its marts equal the DuckDB build's of every run. Every dbt unit test
then passes on the cluster.

Marked `cluster`: `make test-cluster` runs it (about five minutes on two cores), and CI
(.ci/run) runs that after `make test`, whose eight-minute budget it would not fit."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_spark_matches_duckdb import marts_differing

from concord_io.project import PROJECT_ROOT, copy_project

pytestmark = [pytest.mark.cluster, pytest.mark.warehouse]

CONCORD = Path(sys.executable).parent / "concord"
DBT = Path(sys.executable).parent / "dbt"
WORKERS = 2


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(log: Path, text: str, count: int, process: subprocess.Popen) -> None:
    """Until ``log`` says ``text`` ``count`` times (the process alive), at most a minute."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if log.is_file() and log.read_text(errors="replace").count(text) >= count:
            return
        assert process.poll() is None, log.read_text(errors="replace")[-3000:]
        time.sleep(0.5)
    raise AssertionError(f"{log}: no {text!r} within a minute")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A standalone master and two workers (one core, 1 GB each): the master's URL and the
    workers' logs."""
    import pyspark

    home = Path(pyspark.__file__).parent
    work = tmp_path_factory.mktemp("cluster")
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOG_DIR": str(work)}
    spark_class = str(home / "bin" / "spark-class")
    url = f"spark://127.0.0.1:{_free_port()}"
    processes, logs = [], []

    def start(name: str, *args: str) -> tuple[subprocess.Popen, Path]:
        log = work / f"{name}.log"
        with log.open("w") as out:
            process = subprocess.Popen(
                [spark_class, *args], stdout=out, stderr=subprocess.STDOUT, env=env
            )
        processes.append(process)
        return process, log

    try:
        master, master_log = start(
            "master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
            "--port", url.rsplit(":", 1)[1], "--webui-port", str(_free_port()),
        )  # fmt: skip
        _wait_for(master_log, "Starting Spark master", 1, master)
        for number in range(1, WORKERS + 1):
            worker, log = start(
                f"worker{number}", "org.apache.spark.deploy.worker.Worker", url,
                "--cores", "1", "--memory", "1g", "--webui-port", str(_free_port()),
                "--work-dir", str(work / f"worker{number}"),
            )  # fmt: skip
            logs.append(log)
        _wait_for(master_log, "Registering worker", WORKERS, master)
        yield url, logs
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=60)


#: The run held back from the first Spark build and added before the second.
ADDED = "XLM-R_Merged_Multilingual.csv"


def partition_files(spark_dir: Path) -> dict[str, dict[str, set]]:
    """Each partitioned table's partitions (``<column>=<value>``), each with its files'
    names, sizes and modification times."""
    found: dict[str, dict[str, set]] = {}
    for partition in spark_dir.glob("*.db/*/*=*"):
        files = {(f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in partition.iterdir()}
        table = partition.parent.relative_to(spark_dir).as_posix()
        found.setdefault(table, {})[partition.name] = files
    return found


def test_the_same_build_passes_on_a_standalone_cluster_and_equals_duckdbs(cluster, tmp_path):
    url, worker_logs = cluster
    project = copy_project(tmp_path / "project")
    shutil.copytree(PROJECT_ROOT / "quality", project / "quality")  # the checkpoint's suites
    warehouse = tmp_path / "warehouse"
    env = {
        **os.environ,
        "CONCORD_DB_PATH": str(warehouse / "concord.duckdb"),
        "CONCORD_LANDING_DIR": str(warehouse / "landing"),
        "CONCORD_SPARK_DIR": str(warehouse / "spark"),
        "CONCORD_SPARK_MASTER": url,
    }

    def build(target: str) -> None:
        built = subprocess.run(
            [str(CONCORD), "build", "--target", target], cwd=project, env=env,
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert built.returncode == 0, (built.stdout + built.stderr)[-4000:]

    registry = project / "seeds" / "mcq" / "mcq_answer_registry.csv"
    every_run = registry.read_text()
    registry.write_text("".join(
        line for line in every_run.splitlines(keepends=True) if not line.startswith(ADDED)
    ))  # fmt: skip
    answers = project / "seeds" / "mcq" / "answers"
    shutil.move(answers / ADDED, tmp_path / ADDED)
    build("spark")
    before = partition_files(warehouse / "spark")
    # the answers, the per-run models and the per-revision pairing, and their versions
    assert len(before) >= 6 and "intermediate.db/int_mcq_answers_normalised" in before

    shutil.move(tmp_path / ADDED, answers / ADDED)
    registry.write_text(every_run)
    build("spark")
    after = partition_files(warehouse / "spark")
    assert set(after) == set(before)
    for table, partitions in before.items():
        # every earlier partition's files as they were: not one written again
        assert {p: after[table][p] for p in partitions} == partitions, table
        # and the partitions added are the new run's (or its model revision's)
        added = set(after[table]) - set(partitions)
        assert all("xlm-r" in name.lower() for name in added), (table, added)
    normalised = after["intermediate.db/int_mcq_answers_normalised"]
    assert [name for name in normalised if name.startswith("run_id=xlm-r-large--base--")]

    # every dbt unit test on Spark: each model's code as compiled for Spark, on its fixed
    # rows (make test's local Spark build leaves them out; its shared warehouse runs them on
    # DuckDB)
    tested = subprocess.run(
        [str(DBT), "test", "--target", "spark", "--select", "resource_type:unit_test",
         "--profiles-dir", str(project), "--project-dir", str(project)],
        cwd=project, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert tested.returncode == 0, (tested.stdout + tested.stderr)[-4000:]
    manifest = json.loads((project / "target" / "manifest.json").read_text())
    results = json.loads((project / "target" / "run_results.json").read_text())["results"]
    ran = {r["unique_id"]: r["status"] for r in results if r["unique_id"].startswith("unit_test.")}
    assert ran == dict.fromkeys(manifest["unit_tests"], "pass")
    assert len(manifest["unit_tests"]) >= 20

    build("dev")
    # the executors ran in the workers' JVMs, one on each
    for log in worker_logs:
        assert "Asked to launch executor" in log.read_text(errors="replace"), log
    differing = marts_differing(warehouse / "concord_spark.duckdb", warehouse / "concord.duckdb")
    assert not differing, differing
