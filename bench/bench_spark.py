"""Benchmark: the cross-lingual marts on Spark `local[2]` beside DuckDB, same files, same
selection (issue "Spark for real").

Per size: generated long-format answer files (`generate_mcq.generate_long`), landed once by
the reader; then `dbt build --select +path:models/marts/mcq` on DuckDB (dbt-duckdb, its
memory limit 2 GB) and the same on the spark target (Concord's dbt sequence: the Python
models run on Spark's own tables), each in a fresh process. Per build: wall time, the peak
resident memory of the whole process tree (sampled every 0.2 s: dbt's Python, Spark's JVM
driver and its executors, which local mode runs in the driver's JVM), and the work per
answer row. From the per-row cost at the largest size, `docs/spark.md` works out on paper
what 10^10 answers a month need.

    python bench/bench_spark.py [--rows 1000000 10000000]

Results: bench/results/spark.json and spark.md. Time only on an idle machine."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from concord_io.project import copy_project  # noqa: E402

#: The program Spark's JVMs run (pyspark's launcher starts `$JAVA_HOME/bin/java` or `java`).
JAVA = "java"
SELECTION = ["--select", "+path:models/marts/mcq", "--exclude-resource-type", "unit_test"]


def _timed(command: list[str], cwd: Path, env: dict[str, str]) -> dict:
    """``command`` run to its end: seconds, and the peak resident memory of its process
    tree (MB), sampled every 0.2 s: all of it, and its Python processes alone (dbt and the
    Python models it calls, without Spark's JVM: what grows if a model reads rows, not
    counts)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    peak = [0, 0]

    def sample() -> None:
        root = psutil.Process(process.pid)
        while process.poll() is None:
            tree = []
            with contextlib.suppress(psutil.Error):
                for p in [root, *root.children(recursive=True)]:
                    with contextlib.suppress(psutil.Error):
                        tree.append((p.pid, p.ppid(), p.cmdline(), p.memory_info().rss))
            command = {pid: cmdline for pid, _, cmdline, _ in tree}
            # a fork that has not yet run its command (the JVM forks to run `chmod` and the
            # like) has its parent's command line and shares its pages: counted once
            own = [(cmdline, rss) for _, ppid, cmdline, rss in tree if command.get(ppid) != cmdline]
            peak[0] = max(peak[0], sum(rss for _, rss in own))
            python = [rss for cmdline, rss in own if not cmdline or Path(cmdline[0]).name != JAVA]
            peak[1] = max(peak[1], sum(python))
            time.sleep(0.2)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    output, _ = process.communicate()
    watcher.join()
    if process.returncode != 0:
        raise RuntimeError(output[-4000:])
    return {
        "seconds": time.perf_counter() - started,
        "peak_mb": peak[0] / 2**20,
        "python_peak_mb": peak[1] / 2**20,
    }


def measure(n_rows: int) -> dict:
    from generate_mcq import generate_long

    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        project = copy_project(Path(tmp) / "project")
        generate_long(project, n_rows)
        env = {
            **os.environ,
            "CONCORD_LANDING_DIR": str(Path(tmp) / "landing"),
            "CONCORD_DB_PATH": str(Path(tmp) / "bench.duckdb"),
            "CONCORD_SPARK_DIR": str(Path(tmp) / "spark"),
            "CONCORD_MEMORY_LIMIT": "2GB",
            "CONCORD_LANDED": "1",
        }
        landing = _timed([python, "-m", "concord_io.cli", "land"], project, env)
        flags = ["--profiles-dir", str(project), "--project-dir", str(project)]
        dbt = [python, "-m", "concord_io.dbt_sequence", "build", *flags, *SELECTION]
        duckdb_build = _timed(dbt, project, env)
        spark_build = _timed([*dbt, "--target", "spark"], project, env)
    return {
        "answer_rows": n_rows,
        "landing": landing,
        "duckdb": duckdb_build,
        "spark": spark_build,
        "duckdb_us_per_row": 1e6 * duckdb_build["seconds"] / n_rows,
        "spark_us_per_row": 1e6 * spark_build["seconds"] / n_rows,
        "spark_over_duckdb": spark_build["seconds"] / duckdb_build["seconds"],
    }


def write(results: list[dict], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    # the spark target's tuning (profiles.yml) follows the caller's environment
    small = os.environ.get("CONCORD_SPARK_SMALL_DATA", "").strip() == "1"
    tuning = "with Spark's defaults"
    if small:
        tuning = "tuned for small data (CONCORD_SPARK_SMALL_DATA=1)"
    record = {"machine": machine, "spark_tuning": tuning, "sizes": results}
    (out / "spark.json").write_text(json.dumps(record, indent=2))
    lines = [
        "The cross-lingual marts (`dbt build --select +path:models/marts/mcq`, no unit tests) "
        "on DuckDB and on Spark `local[2]` (`concord_io.dbt_sequence --target spark`: the "
        "Python models on Spark's tables), the same landed long-format files "
        f"(bench/bench_spark.py; {machine}; the spark target {tuning}). Peak: the whole "
        "process tree's resident memory (Spark's JVM included); Python's: its Python "
        "processes alone (dbt and the Python models, which run in the driver).",
        "",
        "| answer rows | landing | DuckDB build | peak | Spark build | peak | Python's peak "
        "| Spark / DuckDB | µs per row, DuckDB | µs per row, Spark |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['answer_rows']:,} | {r['landing']['seconds']:.1f} s "
            f"| {r['duckdb']['seconds']:.1f} s | {r['duckdb']['peak_mb']:,.0f} MB "
            f"| {r['spark']['seconds']:.1f} s | {r['spark']['peak_mb']:,.0f} MB "
            f"| {r['spark']['python_peak_mb']:,.0f} MB | {r['spark_over_duckdb']:.1f}× "
            f"| {r['duckdb_us_per_row']:.2f} | {r['spark_us_per_row']:.2f} |"
        )
    (out / "spark.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    results = []
    for n_rows in args.rows:
        results.append(measure(n_rows))
        print(json.dumps(results[-1]), flush=True)
        write(results, args.out)


if __name__ == "__main__":
    main()
