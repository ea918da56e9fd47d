"""Crash safety: a process killed with SIGKILL (no cleanup, no except or finally) leaves
nothing half-done where the next step would see it.

- dbt build killed mid-model: the build database still opens, the published serving
  version is the one from before (same version, same rows), and the next build succeeds;
- a probe run killed mid-write: no partial run is visible to the next dbt build, and the
  run lands whole when it is run again.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from probe_fakes import fake_run_tables

from concord_io.project import CAUTIOUS, dbt_invocation, run_dbt

# a small subgraph: the cross-lingual agreement summary and what it is built from
SELECT = ["--select", "+mcq_agreement_summary", *CAUTIOUS]
# killed the moment dbt starts replacing the mart
KILL_ON = "START sql table model marts.mcq_agreement_summary"


def marts_fingerprint(database: Path) -> dict[str, str]:
    """Every table of schema marts -> a hash of its rows in a fixed order."""
    with duckdb.connect(str(database), read_only=True) as con:
        tables = [
            name
            for (name,) in con.execute(
                "select table_name from information_schema.tables where table_schema = 'marts' "
                "order by table_name"
            ).fetchall()
        ]
        out = {}
        for name in tables:
            rows = con.execute(f"select * from marts.{name} order by all").fetchall()
            out[name] = hashlib.sha256(repr(rows).encode()).hexdigest()
    return out


def start_dbt(args: list[str], project: Path, database: Path) -> subprocess.Popen:
    """dbt as run_dbt runs it, but in the background in its own process group."""
    # PYTHONUNBUFFERED: each log line as it happens
    argv, env = dbt_invocation(args, project, database, {"PYTHONUNBUFFERED": "1"})
    return subprocess.Popen(
        argv,
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def kill_when(process: subprocess.Popen, marker: str, timeout: float = 240) -> list[str]:
    """SIGKILL the process group as soon as ``marker`` appears in its output."""
    seen = []
    deadline = time.monotonic() + timeout
    for line in process.stdout:
        seen.append(line)
        if marker in line:
            os.killpg(process.pid, signal.SIGKILL)
            break
        if time.monotonic() > deadline:
            os.killpg(process.pid, signal.SIGKILL)
            pytest.fail("the marker never appeared:\n" + "".join(seen[-30:]))
    process.wait(timeout=30)
    return seen


def test_dbt_build_killed_mid_model_leaves_database_and_serving_version_intact(project_copy):
    from concord_io.publish import CURRENT_DB, publish

    database = project_copy / "concord.duckdb"
    serving = project_copy / "serving"
    run_dbt(["build", *SELECT], project_copy, database)
    first = publish(database, serving, project_copy / "target" / "manifest.json")
    published_before = marts_fingerprint(serving / CURRENT_DB)
    built_before = marts_fingerprint(database)

    # the inputs change, so that a half-applied build would show in the marts
    registry = project_copy / "seeds" / "mcq" / "mcq_answer_registry.csv"
    registry.write_text(registry.read_text().replace(",GPT-4o,", ",GPT-4o-renamed,"))
    process = start_dbt(["build", *SELECT], project_copy, database)
    output = kill_when(process, KILL_ON)
    assert process.returncode == -signal.SIGKILL, "".join(output[-20:])

    # the build file opens (the killed writer's uncommitted work is dropped) ...
    after_kill = marts_fingerprint(database)
    # ... readers see exactly the version published before the killed build ...
    assert (serving / CURRENT_DB).resolve() == first.database.resolve()
    assert marts_fingerprint(serving / CURRENT_DB) == published_before
    # ... and the next build succeeds and carries the change
    run_dbt(["build", *SELECT], project_copy, database)
    built_after = marts_fingerprint(database)
    with duckdb.connect(str(database), read_only=True) as con:
        models = {
            m for (m,) in con.execute("select model from marts.mcq_agreement_summary").fetchall()
        }
    assert "GPT-4o-renamed" in models and "GPT-4o" not in models
    # the mart being replaced when the build was killed is whole: all old rows or all new
    assert set(after_kill) == set(built_before) == set(built_after)
    for mart, rows in after_kill.items():
        assert rows in (built_before[mart], built_after[mart]), mart
    second = publish(database, serving, project_copy / "target" / "manifest.json")
    assert (serving / CURRENT_DB).resolve() == second.database.resolve()


LANDER = """
import sys, time
from pathlib import Path
import pyarrow.parquet as pq
import probe.landing as landing

source, landing_dir, run_id, marker = sys.argv[1:]
tables = {
    name: pq.read_table(Path(source) / f"{name}.parquet").cast(landing.SCHEMAS[name])
    for name in landing.TABLES
}
write_table = landing.pq.write_table

def write_then_stall(table, path, *args, **kwargs):
    write_table(table, path, *args, **kwargs)
    Path(marker).write_text(str(path))
    time.sleep(120)

landing.pq.write_table = write_then_stall
landing.land_run(landing_dir, run_id, tables)
"""

PROBE_STAGING = ["stg_probe__runs", "stg_probe__scores", "stg_probe__stimuli"]


def landed_runs(database: Path) -> dict[str, tuple[int, int]]:
    with duckdb.connect(str(database), read_only=True) as con:
        runs = {r for (r,) in con.execute("select run_id from staging.stg_probe__runs").fetchall()}
        scores = dict(
            con.execute(
                "select run_id, count(*) from staging.stg_probe__scores group by run_id"
            ).fetchall()
        )
        indices = dict(
            con.execute(
                "select run_id, count(*) from staging.stg_probe__stimuli group by run_id"
            ).fetchall()
        )
    return {run: (scores.get(run, 0), indices.get(run, 0)) for run in runs}


def test_probe_run_killed_mid_write_is_invisible_to_the_next_build(project_copy, tmp_path):
    from probe.landing import land_run
    from probe.stimuli import load_design

    design = load_design(project_copy / "seeds" / "probe")
    landing = project_copy / "landing"  # where run_dbt points the build
    database = project_copy / "concord.duckdb"
    complete = fake_run_tables(design, "run-complete", seed=1)
    land_run(landing, "run-complete", complete)
    expected = (complete["scores"].num_rows, complete["stimuli"].num_rows)

    killed = fake_run_tables(design, "run-killed", seed=2)
    source = tmp_path / "tables"
    source.mkdir()
    for name, table in killed.items():
        pq.write_table(table, source / f"{name}.parquet")
    marker = tmp_path / "first-file-written"
    child = subprocess.Popen(
        [sys.executable, "-c", LANDER, str(source), str(landing), "run-killed", str(marker)],
        cwd=project_copy,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert child.poll() is None, "the landing process ended before writing"
        assert time.monotonic() < deadline, "the landing process never wrote a file"
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait(timeout=30)

    # a file of the killed run is on disk, in a hidden folder the dbt glob does not match
    partial = Path(marker.read_text())
    assert partial.is_file() and partial.parent.name.startswith(".tmp-")
    assert not (landing / "probe" / "run_id=run-killed").exists()
    run_dbt(["build", "--select", *PROBE_STAGING, *CAUTIOUS], project_copy, database)
    assert landed_runs(database) == {"run-complete": expected}

    # run again, it lands whole; the leftover hidden folder is still never read
    land_run(landing, "run-killed", killed)
    run_dbt(["build", "--select", *PROBE_STAGING, *CAUTIOUS], project_copy, database)
    assert landed_runs(database) == {"run-complete": expected, "run-killed": expected}
