"""Crash safety: a process killed with SIGKILL (no cleanup, no except or finally) leaves
nothing half-done where the next step would see it.

- dbt build killed mid-model: the build database still opens, the published serving
  version is the one from before (same version, same rows), and the next build succeeds;
- a probe run killed mid-write: no partial run is visible to the next dbt build, and the
  run lands whole when it is run again;
- a publish killed (SIGKILL) or failing after each of its steps: readers always see one
  complete published version through both reader paths, nothing published is lost, and the
  next publish removes what the killed one left (orphans, partial and half-removed folders).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from probe_fakes import fake_run_tables

from concord_io.project import NO_DATA_TESTS, run_dbt, start_dbt

# a small subgraph: the option frequencies and what they are built from, tables only (the
# data tests of these inputs run on the shared warehouse)
SELECT = ["--select", "+mcq_option_frequency", *NO_DATA_TESTS]
# killed the moment dbt starts replacing the mart
KILL_ON = "START sql table model marts.mcq_option_frequency_v2"


def marts_fingerprint(database: Path) -> dict[str, str]:
    """Every table of schema marts -> a hash of its rows in a fixed order. Not a view, were
    one built there: a view reads its tables as they are, and a build stopped between two of
    them leaves one old and one new, each whole."""
    with duckdb.connect(str(database), read_only=True) as con:
        tables = [
            name
            for (name,) in con.execute(
                "select table_name from information_schema.tables where table_schema = 'marts' "
                "and table_type = 'BASE TABLE' order by table_name"
            ).fetchall()
        ]
        out = {}
        for name in tables:
            rows = con.execute(f"select * from marts.{name} order by all").fetchall()
            out[name] = hashlib.sha256(repr(rows).encode()).hexdigest()
    return out


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
    from concord_io.serving.publish import CURRENT_DB, publish

    database = project_copy / "concord.duckdb"
    serving = project_copy / "serving"
    run_dbt(["build", *SELECT], project_copy, database, artifacts=True)
    first = publish(
        database, serving, project_copy / "target" / "manifest.json", skip_quality_gate=True
    )
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
    run_dbt(["build", *SELECT], project_copy, database, artifacts=True)
    built_after = marts_fingerprint(database)
    with duckdb.connect(str(database), read_only=True) as con:
        models = {
            m for (m,) in con.execute("select model from marts.mcq_option_frequency_v2").fetchall()
        }
    assert "GPT-4o-renamed" in models and "GPT-4o" not in models
    # the mart being replaced when the build was killed is whole: all old rows or all new
    assert set(after_kill) == set(built_before) == set(built_after)
    for mart, rows in after_kill.items():
        assert rows in (built_before[mart], built_after[mart]), mart
    second = publish(
        database, serving, project_copy / "target" / "manifest.json", skip_quality_gate=True
    )
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


def land_until_marked(
    script: str, tables: dict, landing: Path, run_id: str, tmp_path: Path, cwd: Path
) -> Path:
    """Run ``script`` (a landing of ``tables`` as ``run_id``, stalled once it writes its
    marker file) in a process of its own, and SIGKILL it at the marker: the marker file,
    which names where it stopped."""
    source = tmp_path / "tables"
    source.mkdir()
    for name, table in tables.items():
        pq.write_table(table, source / f"{name}.parquet")
    marker = tmp_path / "marker"
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(source), str(landing), run_id, str(marker)],
        cwd=cwd,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert child.poll() is None, "the landing process ended before its marker"
        assert time.monotonic() < deadline, "the landing process never reached its marker"
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    return marker


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
    marker = land_until_marked(LANDER, killed, landing, "run-killed", tmp_path, project_copy)

    # a file of the killed run is on disk, in a hidden folder the dbt glob does not match
    partial = Path(marker.read_text())
    assert partial.is_file() and partial.parent.name.startswith(".tmp-")
    assert not (landing / "probe" / "run_id=run-killed").exists()
    run_dbt(["build", "--select", *PROBE_STAGING], project_copy, database)
    assert landed_runs(database) == {"run-complete": expected}

    # the build's landing deleted the killed run's hidden folder: nothing is left behind
    assert not partial.parent.exists()
    assert [p.name for p in (landing / "probe").iterdir()] == ["run_id=run-complete"]

    # run again, it lands whole
    land_run(landing, "run-killed", killed)
    run_dbt(["build", "--select", *PROBE_STAGING], project_copy, database)
    assert landed_runs(database) == {"run-complete": expected, "run-killed": expected}


REPLACER = """
import sys, time
from pathlib import Path
import pyarrow.parquet as pq
import probe.landing as landing

source, landing_dir, run_id, marker = sys.argv[1:]
tables = {
    name: pq.read_table(Path(source) / f"{name}.parquet").cast(landing.SCHEMAS[name])
    for name in landing.TABLES
}
rename = Path.rename

def rename_then_stall(self, target):
    moved = rename(self, target)
    if Path(target).name.startswith(".old-"):  # the landed run renamed aside: the cut
        Path(marker).write_text(str(target))
        time.sleep(120)
    return moved

Path.rename = rename_then_stall
landing.land_run(landing_dir, run_id, tables, replace=True)
"""


def test_probe_run_replace_killed_between_its_renames_keeps_the_run(project_copy, tmp_path):
    """`probe run --replace` killed after the landed run was renamed aside and before the
    new one was renamed in: the next build's landing puts the run back before anything
    reads the area (it built and published a version without that run), and no hidden
    folder is left."""
    from probe.landing import land_run
    from probe.stimuli import load_design

    design = load_design(project_copy / "seeds" / "probe")
    landing = project_copy / "landing"
    database = project_copy / "concord.duckdb"
    landed = fake_run_tables(design, "run-x", seed=1)
    land_run(landing, "run-x", landed)
    expected = {"run-x": (landed["scores"].num_rows, landed["stimuli"].num_rows)}
    again = fake_run_tables(design, "run-x", seed=2)
    land_until_marked(REPLACER, again, landing, "run-x", tmp_path, project_copy)
    assert not (landing / "probe" / "run_id=run-x").exists()  # the state the cut leaves

    run_dbt(["build", "--select", *PROBE_STAGING], project_copy, database)
    assert landed_runs(database) == expected
    assert [p.name for p in (landing / "probe").iterdir()] == ["run_id=run-x"]


# --- publish killed or failing at every step ---------------------------------------------


def tiny_build(path: Path, label: str) -> Path:
    """A build database with two small marts whose rows say which build they come from."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(path)) as con:
        con.execute("create schema marts")
        con.execute(
            f"create table marts.label as select '{label}' as label, range as i from range(50)"
        )
        con.execute(f"create table marts.other as select '{label}' as label")
    return path


def publish_tiny(work: Path, serving: Path, label: str, keep: int = 2):
    from concord_io.serving.publish import publish

    return publish(
        tiny_build(work / f"{label}.duckdb", label), serving, keep=keep, skip_quality_gate=True
    )


KILLED_PUBLISH = """
import os, signal, sys
import concord_io.serving.publish as publish
database, serving, step, keep = sys.argv[1:]

def kill_after(done):
    if done == step:
        os.kill(os.getpid(), signal.SIGKILL)

publish._step_done = kill_after
if step == "removing":  # killed in the middle of removing a version that left retention
    real_rmtree = publish.shutil.rmtree

    def kill_mid_removal(path, *args, **kwargs):
        if str(path).endswith(".removing"):
            os.kill(os.getpid(), signal.SIGKILL)
        return real_rmtree(path, *args, **kwargs)

    publish.shutil.rmtree = kill_mid_removal
publish.publish(database, serving, keep=int(keep), skip_quality_gate=True)
raise SystemExit("not killed")
"""


def killed_publish(database: Path, serving: Path, step: str, keep: int = 2) -> None:
    result = subprocess.run(
        [sys.executable, "-c", KILLED_PUBLISH, str(database), str(serving), step, str(keep)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == -signal.SIGKILL, result.stderr


def served_state(serving: Path) -> dict:
    """What a reader sees through both reader paths; both must be one complete version."""
    from concord_io.connect import connect_serving
    from concord_io.serving.publish import CURRENT_DB, CURRENT_PARQUET

    with connect_serving(serving / CURRENT_DB) as con:
        (version,) = con.execute("select version from meta.publication").fetchone()
        labels = {r for (r,) in con.execute("select distinct label from marts.label").fetchall()}
        n_rows = con.execute("select count(*) from marts.label").fetchone()[0]
    catalogue = json.loads((serving / CURRENT_PARQUET / "catalogue.json").read_text())
    parquet = pq.read_table(serving / CURRENT_PARQUET / "label.parquet")
    assert catalogue["version"] == version
    assert set(parquet.column("label").to_pylist()) == labels
    assert parquet.num_rows == n_rows == 50
    (label,) = labels
    return {"version": version, "label": label}


def check_record_complete(serving: Path) -> list[str]:
    """Every version the record names is a whole folder: database and Parquet export."""
    from concord_io.serving.publish import (
        CATALOGUE,
        CURRENT_DB,
        CURRENT_PARQUET,
        VERSIONS,
        read_record,
    )

    record = read_record(serving)
    for version in record:
        folder = serving / VERSIONS / version
        assert (folder / CURRENT_DB).is_file() and (folder / CURRENT_PARQUET / CATALOGUE).is_file()
    return record


@pytest.mark.parametrize(
    "step", ["copied", "exported", "sealed", "flipped", "recorded", "pruned", "removing"]
)
def test_publish_killed_at_every_step_loses_nothing_published(tmp_path, step):
    from concord_io.serving.publish import STEPS, VERSIONS

    assert step in STEPS or step == "removing"
    serving = tmp_path / "serving"
    first = publish_tiny(tmp_path, serving, "A")
    second = publish_tiny(tmp_path, serving, "B")
    killed_publish(tiny_build(tmp_path / "C.duckdb", "C"), serving, step)

    flipped = step not in ("copied", "exported", "sealed")
    state = served_state(serving)
    assert state["label"] == ("C" if flipped else "B")
    record = check_record_complete(serving)
    # nothing published is lost: the version that was current before is still whole
    assert second.version in record and (serving / VERSIONS / second.version).is_dir()
    if not flipped:
        assert record == [first.version, second.version]

    # the next publish cleans up and keeps exactly the last two published versions
    fourth = publish_tiny(tmp_path, serving, "D")
    assert served_state(serving) == {"version": fourth.version, "label": "D"}
    record = check_record_complete(serving)
    assert record[-1] == fourth.version
    previous = record[-2]
    assert previous == (state["version"] if flipped else second.version)
    assert sorted(p.name for p in (serving / VERSIONS).iterdir()) == [previous, fourth.version]


def test_interrupted_publishes_never_cost_a_published_version(tmp_path):
    """The bug of issue 11: publishes killed after their version file was in place but before
    it was published; the next publish kept those and deleted the published versions,
    including the one that was current a moment before."""
    from concord_io.serving.publish import VERSIONS, read_record

    serving = tmp_path / "serving"
    first = publish_tiny(tmp_path, serving, "A", keep=3)
    second = publish_tiny(tmp_path, serving, "B", keep=3)
    killed_publish(tiny_build(tmp_path / "O.duckdb", "O"), serving, "sealed", keep=3)
    (orphan,) = {p.name for p in (serving / VERSIONS).iterdir()} - {first.version, second.version}
    # more version folders in place but never published (as several interrupted publishes
    # leave them), newer than every published one, and a partial one
    for n in (1, 2):
        shutil.copytree(serving / VERSIONS / orphan, serving / VERSIONS / f"{orphan[:-7]}99999{n}Z")
    shutil.copytree(
        serving / VERSIONS / orphan, serving / VERSIONS / f"{orphan[:-7]}999993Z.partial"
    )
    assert len(list((serving / VERSIONS).iterdir())) == 6
    assert served_state(serving)["label"] == "B"

    third = publish_tiny(tmp_path, serving, "C", keep=3)
    published = [first.version, second.version, third.version]
    assert read_record(serving) == published
    assert sorted(p.name for p in (serving / VERSIONS).iterdir()) == published
    assert served_state(serving) == {"version": third.version, "label": "C"}
    # retention counts published versions only: with keep=2 the oldest goes, B stays
    fourth = publish_tiny(tmp_path, serving, "D", keep=2)
    assert read_record(serving) == [third.version, fourth.version]


def test_a_publish_after_the_record_was_lost_keeps_every_version(tmp_path, capsys):
    """A missing record is rebuilt from the version folders (all kept, one line says so),
    then the publish goes on; retention resumes at the next publish."""
    from concord_io.serving.publish import RECORD, VERSIONS, main, read_record

    serving = tmp_path / "serving"
    published = [publish_tiny(tmp_path, serving, label, keep=3).version for label in "ABC"]
    (serving / RECORD).unlink()
    main(
        ["--database", str(tiny_build(tmp_path / "D.duckdb", "D")), "--serving-dir",
         str(serving), "--keep", "2", "--skip-quality-gate"]
    )  # fmt: skip
    note = capsys.readouterr().out.splitlines()[0]
    assert note.startswith("note: ") and "rebuilt from the 3 version folder(s)" in note
    record = read_record(serving)
    assert record[:3] == published and len(record) == 4
    assert sorted(p.name for p in (serving / VERSIONS).iterdir()) == record
    assert served_state(serving) == {"version": record[-1], "label": "D"}
    fifth = publish_tiny(tmp_path, serving, "E", keep=2)
    assert read_record(serving) == [record[-1], fifth.version]


@pytest.mark.parametrize("step", ["copied", "exported", "sealed", "flipped", "recorded"])
def test_publish_failing_at_every_step_reports_that_failure(tmp_path, monkeypatch, step):
    import concord_io.serving.publish as publish_module
    from concord_io.serving.publish import VERSIONS

    serving = tmp_path / "serving"
    before = publish_tiny(tmp_path, serving, "A")
    listing = sorted(p.name for p in (serving / VERSIONS).iterdir())

    def fail_after(done):
        if done == step:
            raise RuntimeError(f"injected failure after {step}")

    monkeypatch.setattr(publish_module, "_step_done", fail_after)
    with pytest.raises(RuntimeError, match=f"injected failure after {step}"):
        publish_tiny(tmp_path, serving, "B")
    flipped = step in ("flipped", "recorded")
    assert served_state(serving)["label"] == ("B" if flipped else "A")
    if not flipped:  # nothing of the failed publish is left
        assert sorted(p.name for p in (serving / VERSIONS).iterdir()) == listing
    monkeypatch.setattr(publish_module, "_step_done", lambda done: None)
    after = publish_tiny(tmp_path, serving, "C")
    assert check_record_complete(serving)[-1] == after.version
    assert before.version in check_record_complete(serving) or flipped


def test_a_failing_cleanup_does_not_hide_the_first_error(tmp_path, monkeypatch):
    import concord_io.serving.publish as publish_module

    serving = tmp_path / "serving"
    publish_tiny(tmp_path, serving, "A")

    def fail_after(done):
        if done == "exported":
            raise RuntimeError("the first error")

    def failing_rmtree(path, *args, **kwargs):
        raise OSError(f"cannot remove {path}")

    monkeypatch.setattr(publish_module, "_step_done", fail_after)
    monkeypatch.setattr(publish_module.shutil, "rmtree", failing_rmtree)
    with pytest.raises(RuntimeError, match="the first error") as caught:
        publish_tiny(tmp_path, serving, "B")
    assert any("cleanup after the failure also failed" in n for n in caught.value.__notes__)
    assert served_state(serving)["label"] == "A"
