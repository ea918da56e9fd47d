"""The `concord` command line: bad flags give one line naming the flag; build runs its stages in
order, stops at the first that fails and logs plain text; status reads what is published,
the probe runs landed, quarantined rows and failing tests; store_failures and the on-run-end
hook record a failing test in marts.dq_test_failures."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from rich.console import Console

from concord_io.cli import STAGE_NAMES, Stage, build_stages, run_build, status_report
from concord_io.dbt_sequence import THEN, split
from concord_io.errors import ConcordError
from concord_io.project import PROJECT_ROOT, copy_project, run_dbt

CONCORD = Path(sys.executable).parent / "concord"


def concord(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(CONCORD), *args], capture_output=True, text=True, check=False, **kwargs
    )


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["build", "--keep", "1"], "'--keep': Input should be greater than or equal to 2"),
        (["build", "--stage", "deploy"], "--stage 'deploy'"),
        (["export", "--format", "pdf"], "--format 'pdf'"),
        (["export", "--bogus"], "--bogus"),
        (["export", "--run", "x"], "--run"),
        (["open", "nowhere"], "'what'"),
        (["frobnicate"], "'frobnicate'"),
    ],
)
def test_bad_flags_give_one_line_naming_the_flag(args, flag, tmp_path):
    result = concord(
        *args, env={"PATH": "/usr/bin:/bin", "CONCORD_DB_PATH": str(tmp_path / "w.duckdb")}
    )
    assert result.returncode == 2, result.stderr
    first, *rest = result.stderr.splitlines()
    assert first.startswith("error: ") and flag in first, result.stderr
    assert len(rest) <= 1 and "Traceback" not in result.stderr
    assert not list(tmp_path.iterdir()), "a refused command wrote something"


def test_unknown_mart_and_missing_serving_name_what_to_do(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "CONCORD_DB_PATH": str(tmp_path / "w.duckdb")}
    result = concord("export", "--mart", "nope", env=env)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"error: {tmp_path / 'serving' / 'concord.duckdb'}: nothing has been published yet",
        "  run `concord build` first",
    ]


def test_build_stages_are_the_pipeline_in_order(tmp_path):
    stages = build_stages(tmp_path / "concord.duckdb", keep=2)
    assert [s.name for s in stages] == list(STAGE_NAMES)
    # the inputs (seed files, the cross-lingual study's files) land first, and the stage
    # prints its one line per folder; dbt builds from the landing
    assert stages[0].steps == [[sys.executable, "-m", "concord_io.cli", "land"]]
    assert stages[0].show_output
    # the inputs land once: the dbt build after the land stage does not land them again,
    # and alone (--stage dbt-build) it lands through the plugin, as plain dbt build does
    assert stages[1].env == {"CONCORD_LANDED": "1"}
    assert build_stages(tmp_path / "concord.duckdb", lands_first=False)[1].env == {}
    # a data build leaves the unit tests (the models' code on fixed rows) to make test;
    # dbt docs follow in the same process, from the manifest the build wrote
    (dbt_build,) = stages[1].steps
    assert dbt_build[:4] == [sys.executable, "-m", "concord_io.dbt_sequence", "build"]
    build, docs = split(dbt_build[3:])
    assert build[-2:] == ["--exclude-resource-type", "unit_test"]
    assert docs[:2] == ["docs", "generate"] and "--no-compile" in docs
    publish = " ".join(stages[3].steps[0])
    assert "concord_io.serving.publish" in publish and "--keep 2" in publish
    assert str(tmp_path / "serving") in publish
    assert not any("docs" in step for step in stages[4].steps if isinstance(step, list))
    # each stage alone: dbt build in a dbt process of its own; the report writes the docs,
    # compiling
    alone = build_stages(tmp_path / "concord.duckdb", docs_from_build=False)
    assert alone[1].steps[0][1:2] == ["build"]
    assert alone[4].steps[0][1:3] == ["docs", "generate"]
    assert "--no-compile" not in alone[4].steps[0]
    # a stage slow to import starts with the stage before it: dbt while the inputs land,
    # Great Expectations while dbt builds; publish and the report work ahead from the build
    # database while the checkpoint runs
    assert [bool(stage.warm) for stage in stages] == [False, True, True, False, False, False]
    assert "great_expectations" in stages[2].warm and "dbt.cli.main" in stages[1].warm
    assert stages[3].prepares == ("--when-told",)
    assert stages[4].prepares == ("--figures-from", str(tmp_path / "concord.duckdb"))
    assert not alone[1].warm and not alone[4].prepares  # dbt's own commands come first there
    spark = build_stages(tmp_path / "concord.duckdb", dbt_target="spark")
    assert not spark[2].warm  # a Spark build keeps every core busy


def test_the_spark_target_builds_on_spark_then_mirrors_its_tables_for_the_stages_after(
    tmp_path, monkeypatch
):
    """`concord build --target spark`: dbt builds and writes its docs on the spark target
    (every node: no node state on Spark), then Spark's tables are mirrored into the database
    the quality checkpoint, publish and the summary read; the serving folder is the one a
    DuckDB build publishes to."""
    monkeypatch.setenv("CONCORD_SPARK_DIR", str(tmp_path / "spark"))
    mirror = tmp_path / "concord_spark.duckdb"
    stages = build_stages(mirror, dbt_target="spark")
    dbt_build, mirrored = stages[1].steps
    build, docs = split(dbt_build[3:])
    assert "--nodes" not in dbt_build
    assert build[build.index("--target") + 1] == docs[docs.index("--target") + 1] == "spark"
    assert mirrored == [sys.executable, "-m", "concord_io.spark", "mirror", "--spark-dir",
                        str(tmp_path / "spark"), "--database", str(mirror)]  # fmt: skip
    for stage in (stages[2], stages[3], stages[5]):  # quality, publish, summary
        assert str(mirror) in stage.steps[0]
    assert str(tmp_path / "serving") in " ".join(stages[3].steps[0])
    assert "--target" not in build_stages(mirror)[1].steps[0]


def test_dbt_docs_follow_the_build_in_its_process_only_when_the_report_runs_too(
    tmp_path, monkeypatch
):
    from concord_io import cli

    ran: dict[tuple[str, ...], list[Stage]] = {}

    def record(database, stages, log_path, console, landing):
        ran[tuple(s.name for s in stages)] = stages

    monkeypatch.setattr(cli, "run_build", record)
    for names in (["dbt-build"], ["dbt-build", "report"], ["report"]):
        cli.build(database=tmp_path / "concord.duckdb", stage=names)
    alone = ran[("dbt-build",)][0].steps[0]
    assert alone[1] == "build" and THEN not in alone
    together = ran[("dbt-build", "report")]
    assert together[0].steps[0][1:3] == ["-m", "concord_io.dbt_sequence"]
    assert not any("docs" in step for step in together[1].steps if isinstance(step, list))
    (report,) = ran[("report",)]
    assert report.steps[0][1:3] == ["docs", "generate"]


def test_dbt_sequence_runs_each_command_in_one_process_and_stops_at_the_first_failure():
    def sequence(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "concord_io.dbt_sequence", *args],
            capture_output=True,
            text=True,
        )

    both = sequence("--version", THEN, "--version")
    assert both.returncode == 0, both.stderr
    assert both.stdout.count("Core:") == 2
    failed = sequence("--no-such-flag", THEN, "--version")
    assert failed.returncode == 2
    assert "Core:" not in failed.stdout
    with pytest.raises(SystemExit, match="usage"):
        split(["build", THEN])


@pytest.mark.parametrize("status", [0, 3])
def test_a_command_run_without_teardown_ends_with_its_status_once_its_output_is_out(
    tmp_path, status
):
    """``run_main(main, teardown=False)`` (the quality checkpoint, whose imports take 0.85 s
    to tear down): the process ends with main's status, its output all out, without the
    interpreter's teardown (an exit handler never runs)."""
    script = tmp_path / "command.py"
    script.write_text(
        "import atexit, sys\n"
        "from concord_common import run_main\n"
        f"atexit.register(lambda: open({str(tmp_path / 'torn_down')!r}, 'w'))\n"
        "def main(argv):\n"
        "    print('the work is done')\n"
        "    print('a warning', file=sys.stderr)\n"
        f"    return {status}\n"
        "run_main(main, [], teardown=False)\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (status, "the work is done\n",
                                                           "a warning\n")  # fmt: skip
    assert not (tmp_path / "torn_down").exists()


def test_build_stops_at_the_first_failing_stage_and_logs_plain_text(tmp_path):
    marker = tmp_path / "later-stage-ran"
    colour = "print('\\x1b[31mred\\x1b[0m text')"
    stages = [
        Stage("first", [[sys.executable, "-c", "print('first output')"]]),
        Stage("second", [[sys.executable, "-c", f"{colour}; import sys; sys.exit(3)"]]),
        Stage("third", [[sys.executable, "-c", f"open({str(marker)!r}, 'w')"]]),
    ]
    out = io.StringIO()
    log = tmp_path / "logs" / "build.log"
    with pytest.raises(ConcordError, match=r"stage 'second' \(exit 3\)") as error:
        run_build(tmp_path / "w.duckdb", stages, log, Console(file=out))
    assert str(log) in error.value.hint
    assert not marker.exists()
    shown = out.getvalue()
    assert "[1/3] first ok (" in shown and "[2/3] second failed after" in shown
    assert "\n  first output\n" in shown  # the last line of a stage that passed
    assert "\x1b[" not in shown.replace("\x1b[31mred\x1b[0m", "")  # no colour of our own
    text = log.read_text(encoding="utf-8")
    assert "first output" in text and "=== [2/3] second" in text and "third" not in text


def test_a_stage_slow_to_import_starts_ahead_and_runs_only_after_the_stage_before_it(tmp_path):
    """A stage with ``warm`` modules (the quality checkpoint: Great Expectations) starts its
    process with the stage before it and imports them meanwhile, but its module runs only
    when its turn comes, after that stage ended; a build that stops before its turn ends
    it without running it."""
    events = tmp_path / "events"
    module = tmp_path / "late_stage.py"
    module.write_text(
        "import sys, pathlib\n"
        f"pathlib.Path({str(events)!r}).open('a').write('late ran after: '\n"
        f"    + pathlib.Path({str(events)!r}).read_text().strip().splitlines()[-1] + '\\n')\n"
        "print('late output'); sys.exit(int(sys.argv[1]))\n"
    )
    earlier = f"import time; time.sleep(1); open({str(events)!r}, 'a').write('earlier ended\\n')"
    env = {"PYTHONPATH": str(tmp_path)}

    def stages(earlier_exit: int, late_exit: int = 0) -> list[Stage]:
        late = [sys.executable, "-m", "late_stage", str(late_exit)]
        return [
            Stage(
                "earlier", [[sys.executable, "-c", f"{earlier}; raise SystemExit({earlier_exit})"]]
            ),
            Stage("late", [late], env=env, warm=("json", "late_imported_ahead")),
        ]

    (tmp_path / "late_imported_ahead.py").write_text(
        f"open({str(events)!r}, 'a').write('imported ahead\\n')\n"
    )
    out = io.StringIO()
    run_build(tmp_path / "w.duckdb", stages(0), tmp_path / "b.log", Console(file=out))
    assert events.read_text().splitlines() == [
        "imported ahead", "earlier ended", "late ran after: earlier ended"
    ]  # fmt: skip
    assert "[2/2] late ok (" in out.getvalue() and "late output" in out.getvalue()
    # its failure is the stage's, as for any other stage
    events.unlink()
    with pytest.raises(ConcordError, match=r"stage 'late' \(exit 4\)"):
        run_build(tmp_path / "w.duckdb", stages(0, 4), tmp_path / "b.log", Console(file=out))
    # the stage before it fails: it never runs (its process, which only imported, is ended)
    events.unlink()
    with pytest.raises(ConcordError, match=r"stage 'earlier' \(exit 2\)"):
        run_build(tmp_path / "w.duckdb", stages(2), tmp_path / "b.log", Console(file=out))
    assert "earlier ended" in events.read_text() and "late ran" not in events.read_text()


def test_a_stage_that_prepares_works_beside_the_stage_before_it_and_ends_only_after_it(
    tmp_path,
):
    """A stage that ``prepares`` (publish's ``--when-told``) starts once the dbt stage has
    ended, with the stage after it, does its work meanwhile and finishes only when its turn
    comes; the stage after it, slow to import, starts then too. When the stage before it
    fails, its process is ended (SIGTERM) and never finishes."""
    events = tmp_path / "events"
    log = f"open({str(events)!r}, 'a').write"
    (tmp_path / "preparing.py").write_text(
        "import signal, sys, time\n"
        f"signal.signal(signal.SIGTERM, lambda *_: ({log}('prepared work removed\\n'), "
        "sys.exit(143)))\n"
        f"{log}('prepared' + ' ' + sys.argv[1] + '\\n')\n"
        "if sys.stdin.readline().strip() == 'go':\n"
        f"    {log}('finished\\n')\n"
    )
    (tmp_path / "after_imported.py").write_text(f"{log}('after imported\\n')\n")
    env = {"PYTHONPATH": str(tmp_path)}

    def stages(checking_exit: int) -> list[Stage]:
        checking = f"import time; time.sleep(2); {log}('checked\\n'); "
        checking += f"raise SystemExit({checking_exit})"
        return [
            Stage("dbt-build", [[sys.executable, "-c", f"{log}('first ended\\n')"]]),
            Stage("check", [[sys.executable, "-c", checking]]),
            Stage("publish", [[sys.executable, "-m", "preparing"]], env=env, prepares=("--ahead",)),
            Stage("after", [[sys.executable, "-m", "json.tool", "--help"]], env=env,
                  warm=("after_imported",)),
        ]  # fmt: skip

    out = io.StringIO()
    run_build(tmp_path / "w.duckdb", stages(0), tmp_path / "b.log", Console(file=out))
    lines = events.read_text().splitlines()
    assert lines[0] == "first ended" and lines[-2:] == ["checked", "finished"]
    assert sorted(lines[1:3]) == ["after imported", "prepared --ahead"]
    events.unlink()
    with pytest.raises(ConcordError, match=r"stage 'check' \(exit 3\)"):
        run_build(tmp_path / "w.duckdb", stages(3), tmp_path / "b.log", Console(file=out))
    assert "prepared work removed" in events.read_text()
    assert "finished" not in events.read_text()


def test_concord_build_holds_one_warehouse_lock_from_its_landing_to_its_end(
    project_copy, monkeypatch
):
    """`concord build` takes the warehouse lock before its land stage and hands it to every
    stage's process (the landing and dbt hold it through it, and do not wait for it), so a
    command started between its stages (here a landing, as `dbt run --vars ...` lands with
    its own vars) waits until the build has ended: its landing was built and published as
    the build's. The real land stage and a real dbt call through the plugin."""
    landing = project_copy / "warehouse" / "landing"
    monkeypatch.setenv("CONCORD_LANDING_DIR", str(landing))
    monkeypatch.chdir(project_copy)
    database = project_copy / "warehouse" / "concord.duckdb"
    land, dbt_build = build_stages(database)[:2]
    # the lock is what is tested, not the graph: one model
    flags = ["--profiles-dir", str(project_copy), "--project-dir", str(project_copy)]
    # (as a module: the stage's process starts ahead, importing dbt, with the lock handed on)
    dbt_build.steps = [[sys.executable, "-m", "dbt.cli.main", "run", "--select",
                        "stg_rater__ratings", *flags]]  # fmt: skip
    assert dbt_build.warm
    outsider: list[subprocess.Popen] = []

    def start_another_landing() -> None:
        process = subprocess.Popen(
            [sys.executable, "-m", "concord_io.cli", "--project-dir", str(project_copy), "land",
             "--landing", str(landing)],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        outsider.append(process)
        assert process.stderr is not None
        waiting = process.stderr.readline()  # said at once, before it waits
        assert f"waiting for the warehouse ({landing}): held by pid" in waiting
        assert "concord build" in waiting

    def it_still_waits() -> None:
        assert outsider[0].poll() is None  # dbt ran and ended: the lock is the build's

    stages = [land, Stage("between", [start_another_landing]), dbt_build,
              Stage("after dbt", [it_still_waits])]  # fmt: skip
    run_build(database, stages, project_copy / "b.log", Console(file=io.StringIO()), landing)
    assert outsider[0].wait(timeout=120) == 0  # then it lands


def whole_build_places(project: Path) -> tuple[Path, Path, Path, Path]:
    """The warehouse folder, build database, landing and serving folder of a whole build."""
    warehouse = project / "warehouse"
    return warehouse, warehouse / "concord.duckdb", warehouse / "landing", warehouse / "serving"


def test_a_whole_build_with_nothing_new_stops_after_its_landing(project_copy, monkeypatch):
    """The whole build records what it was made from; the next one with nothing new stops
    after its (real) landing without running the rest, and any change builds again: an
    input file, a model's code, the build database written by another dbt call, a
    published version gone; --full always builds. (The stages after the landing stand in
    for dbt, quality, publish: they count their runs and write what those write.)"""
    from concord_io import cli
    from concord_io.landing import land
    from concord_io.serving.publish import CURRENT, CURRENT_DB, VERSIONS

    monkeypatch.chdir(project_copy)
    warehouse, database, landing, serving = whole_build_places(project_copy)
    ran: list[str] = []

    def dbt_build() -> None:
        ran.append("dbt")
        database.write_bytes(b"a build " + str(len(ran)).encode())

    published: list[str] = []

    def publish() -> None:
        version = f"20261128T0000{len(published):02d}000000Z"
        published.append(version)
        (serving / VERSIONS / version).mkdir(parents=True)
        (serving / VERSIONS / version / CURRENT_DB).write_bytes(database.read_bytes())
        (serving / CURRENT).unlink(missing_ok=True)
        (serving / CURRENT).symlink_to(f"{VERSIONS}/{version}")

    def build(full: bool = False) -> list[str]:
        ran.clear()
        stages = [
            Stage("land", [lambda: print(len(land(project_copy, landing).outcomes))]),
            Stage("dbt-build", [dbt_build]),
            Stage("publish", [publish]),
        ]
        cli._skip_when_nothing_new(stages, project_copy, landing, database, full)
        out = io.StringIO()
        run_build(database, stages, project_copy / "b.log", Console(file=out), landing)
        return ran if "nothing new since the last build" not in out.getvalue() else ["skipped"]

    assert build() == ["dbt"]
    assert build() == ["skipped"]
    answers = project_copy / "seeds" / "mcq" / "answers" / "mBERT_Merged_Multilingual.csv"
    text = answers.read_text(encoding="utf-8")
    cut = text.rindex("\n", 0, len(text) - 1) - 1  # the last row's last answer
    answers.write_text(text[:cut] + ("A" if text[cut] != "A" else "B") + text[cut + 1 :],
                       encoding="utf-8")  # fmt: skip
    assert build() == ["dbt"]  # a changed answer file
    assert build() == ["skipped"]
    model = project_copy / "models" / "marts" / "mcq" / "mcq_agreement_summary_v2.sql"
    model.write_text(model.read_text(encoding="utf-8") + "\n-- changed\n", encoding="utf-8")
    assert build() == ["dbt"]  # a mart's code
    database.write_bytes(b"written by a plain dbt build")
    assert build() == ["dbt"]  # the database another dbt call wrote
    (serving / CURRENT).unlink()
    assert build() == ["dbt"]  # the published version gone
    assert build(full=True) == ["dbt"]
    assert build() == ["skipped"]


def test_a_build_whose_dbt_stage_ran_no_published_table_keeps_the_current_version(
    project_copy, monkeypatch
):
    """After the quality checkpoint, a build whose dbt stage ran no node of schema marts
    (concord_io.node_state's record) publishes nothing: the current version stays, the
    build records itself and the next one with nothing new stops after its landing; one
    that ran a published table publishes. (The stages stand in for dbt, quality, publish:
    the dbt stand-in writes the record a dbt stage writes.)"""
    from concord_io import cli, node_state
    from concord_io.landing import land
    from concord_io.serving.publish import CURRENT, CURRENT_DB, VERSIONS

    monkeypatch.chdir(project_copy)
    warehouse, database, landing, serving = whole_build_places(project_copy)
    ran: list[str] = []
    published_ran = [True]

    def dbt_build() -> None:
        ran.append("dbt")
        database.write_bytes(b"a build " + str(len(ran)).encode())
        nodes = {
            "model.concord.mcq_accuracy": {"ran": published_ran[0], "published": True,
                                           "fingerprint": "f", "why": "changed"},
            "model.concord.int_x": {"ran": True, "published": False, "fingerprint": "g",
                                    "why": "changed"},
        }  # fmt: skip
        node_state._write(warehouse, {"database": None, "nodes": nodes})

    versions: list[str] = []

    def publish() -> None:
        ran.append("publish")
        versions.append(f"20261128T0000{len(versions):02d}000000Z")
        version = versions[-1]
        (serving / VERSIONS / version).mkdir(parents=True)
        (serving / VERSIONS / version / CURRENT_DB).write_bytes(database.read_bytes())
        (serving / CURRENT).unlink(missing_ok=True)
        (serving / CURRENT).symlink_to(f"{VERSIONS}/{version}")

    def build() -> list[str]:
        ran.clear()
        stages = [
            Stage("land", [lambda: print(len(land(project_copy, landing).outcomes))]),
            Stage("dbt-build", [dbt_build]),
            Stage("quality", [lambda: ran.append("quality")]),
            Stage("publish", [publish]),
        ]
        cli._skip_when_nothing_new(stages, project_copy, landing, database, False)
        run_build(database, stages, project_copy / "b.log", Console(file=io.StringIO()), landing)
        return list(ran)

    assert build() == ["dbt", "quality", "publish"]  # a first build publishes
    published_ran[0] = False
    model = project_copy / "models" / "intermediate" / "mcq" / "int_mcq_runs_versioned.sql"
    model.write_text(model.read_text(encoding="utf-8") + "\n-- changed\n", encoding="utf-8")
    assert build() == ["dbt", "quality"]  # no published table ran: the version stays
    assert build() == []  # and the build recorded itself: nothing new
    # the product's code or checks changed (a quality suite here; the report's template
    # alike): no published table runs, yet the version is made again by the new code
    suites = project_copy / "quality" / "suites"
    suites.mkdir(parents=True, exist_ok=True)
    (suites / "a_check.yml").write_text("# a suite\n", encoding="utf-8")
    assert build() == ["dbt", "quality", "publish"]
    model.write_text(model.read_text(encoding="utf-8") + "-- once more\n", encoding="utf-8")
    assert build() == ["dbt", "quality"]
    published_ran[0] = True
    model.write_text(model.read_text(encoding="utf-8") + "-- again\n", encoding="utf-8")
    assert build() == ["dbt", "quality", "publish"]


def test_build_with_all_stages_ok_reports_each_timing(tmp_path):
    stages = [Stage(n, [[sys.executable, "-c", "print(1)"]]) for n in ("a", "b")]
    stages.append(Stage("summary", [[sys.executable, "-c", "print('the summary')"]], True))
    out = io.StringIO()
    timings = run_build(tmp_path / "w.duckdb", stages, tmp_path / "b.log", Console(file=out))
    assert [n for n, _ in timings] == ["a", "b", "summary"]
    assert all(seconds >= 0 for _, seconds in timings)
    assert "the summary" in out.getvalue() and "build finished in" in out.getvalue()


OLD, NEW = "20260101T000000000000Z", "20260102T000000000000Z"


def fake_version(serving: Path, stamp: str, quality: str, quarantined: list[tuple[str, str]]):
    """One version folder as publish writes it: meta.publication and a few marts."""
    folder = serving / "versions" / stamp
    folder.mkdir(parents=True)
    with duckdb.connect(str(folder / "concord.duckdb")) as con:
        con.execute("create schema meta; create schema marts")
        con.execute(
            "create table meta.publication as select ? as version, "
            "'2026-01-01T00:00:00Z' as built_at, '2026-01-01T00:01:00Z' as published_at, "
            "? as quality",
            [stamp, quality],
        )
        con.execute("create table marts.dq_quarantine (study varchar, reason varchar)")
        con.executemany("insert into marts.dq_quarantine values (?, ?)", quarantined)
        con.execute(
            "create table marts.dq_test_failures as select 'unique_x' as test_name, "
            "'stg_x' as model_name, 'warn' as status, 2::bigint as n_failures, "
            "'dq_failures.unique_x' as failures_relation"
        )
        con.execute("create table marts.probe_indices_per_name as select 'run-a' as run_id")
        # same rows, another value in the newer version
        con.execute(f"create table marts.agreement as select {len(stamp) + (stamp == NEW)} as x")
        # a rebuild's float noise (the last bits of a double) is no change; a real one is
        noise = "0.3" if stamp == OLD else "0.1 + 0.2"  # 0.30000000000000004
        con.execute(f"create table marts.float_noise as select {noise}::double as x, 'a' as k")
        moved = "0.123" if stamp == OLD else "0.124"
        con.execute(f"create table marts.float_moved as select {moved}::double as x")
        if stamp == OLD:
            con.execute("create table marts.retired as select 1 as x")


@pytest.fixture
def fake_serving(tmp_path, monkeypatch) -> Path:
    """A serving folder as publish lays it out, with two versions kept (the older published
    with the quality gate skipped); the current one has quarantined rows, a failing test
    and a probe run; a landing folder with two runs; dbt's run_results with a failing test."""
    serving = tmp_path / "serving"
    rater = ("rater", "undeclared category")
    fake_version(serving, OLD, "skipped", [rater])
    fake_version(serving, NEW, "passed", [rater, rater, ("mcq", "invalid answer: E")])
    (serving / "published.json").write_text(
        json.dumps({"versions": [{"version": OLD}, {"version": NEW}]})
    )
    (serving / "current").symlink_to(Path("versions") / NEW)
    (serving / "concord.duckdb").symlink_to(Path("current") / "concord.duckdb")
    landing = tmp_path / "landing"
    for run, model in (("run-a", "demo gpt2 (random weights)"), ("run-b", "/models/llama")):
        (landing / "probe" / f"run_id={run}").mkdir(parents=True)
        meta = {"model": [model], "design_hash": ["d"], "dtype": ["float32"], "finished_at": [1]}
        pq.write_table(pa.table(meta), landing / "probe" / f"run_id={run}" / "runs.parquet")
    (landing / "probe" / ".tmp-run_id=cut-off").mkdir()  # an unfinished run is not listed
    # nor the reader's empty tables before the first run (concord_io.landing.engine)
    (landing / "probe" / "run_id=_empty").mkdir()
    target = tmp_path / "target"
    target.mkdir()
    (target / "run_results.json").write_text(
        json.dumps(
            {
                "metadata": {"generated_at": "2026-01-02T00:00:00Z"},
                "results": [
                    {"unique_id": "test.concord.a", "status": "pass", "failures": 0},
                    {"unique_id": "test.concord.b", "status": "fail", "failures": 4},
                    {"unique_id": "model.concord.m", "status": "success"},
                ],
            }
        )
    )
    monkeypatch.setenv("CONCORD_LANDING_DIR", str(landing))
    monkeypatch.setenv("DBT_TARGET_PATH", str(target))
    return serving


def test_status_lists_publication_runs_quarantine_and_failing_tests(fake_serving):
    text = status_report(fake_serving)
    assert f"Published version {NEW}" in text
    assert (
        "built 2026-01-01T00:00:00Z, published 2026-01-01T00:01:00Z; 2 version(s) kept:\n"
        f"    {OLD}: quality skipped\n"
        f"    {NEW}: quality passed  (current)\n"
        f"  Since {OLD}: 4 table(s) changed\n"
        "    table retired removed\n"
        "    agreement: values changed (1 rows)\n"
        "    dq_quarantine: 1 -> 3 rows\n"
        "    float_moved: values changed (1 rows)\n"
    ) in text
    assert "float_noise" not in text
    assert (
        "Quarantined rows: 3\n  mcq: 1 x invalid answer: E\n  rater: 2 x undeclared category"
        in text
    )
    assert "Failing tests in the published build: 1\n  unique_x on stg_x: warn, 2 rows" in text
    assert "Probe runs landed in" in text and ": 2\n" in text
    assert "run-a: demo gpt2 (random weights)  (published)" in text
    assert "run-b: /models/llama  (not built)" in text
    assert "1 test(s) not passing\n  test.concord.b: fail (4 rows)" in text


def test_status_says_what_it_cannot_read_and_reports_the_rest(fake_serving, tmp_path):
    """A damaged older version and a run_results.json cut short (a dbt call killed while it
    wrote it) each get a line; they were tracebacks."""
    (fake_serving / "versions" / OLD / "concord.duckdb").write_bytes(b"not a database")
    results = tmp_path / "target" / "run_results.json"
    results.write_text(results.read_text()[:60])
    text = status_report(fake_serving)
    assert f"    {OLD}: quality unreadable (" in text
    assert f"    {NEW}: quality passed  (current)" in text and "Since" not in text
    assert f"{results} is unreadable (" in text
    assert "the next dbt build writes it again" in text


def test_status_before_any_publish(tmp_path, monkeypatch):
    monkeypatch.setenv("CONCORD_LANDING_DIR", str(tmp_path / "landing"))
    monkeypatch.setenv("DBT_TARGET_PATH", str(tmp_path / "target"))
    text = status_report(tmp_path / "serving")
    assert text.startswith("Nothing published in")
    assert "Probe runs landed" in text


def test_status_names_the_spark_build_a_version_was_published_from(tmp_path, monkeypatch):
    """A version published by `concord build --target spark` comes from Spark's build
    mirrored beside the build database: status says so, not that the DuckDB build changed."""
    from concord_io.serving.publish import publish

    monkeypatch.setenv("CONCORD_LANDING_DIR", str(tmp_path / "landing"))
    monkeypatch.setenv("DBT_TARGET_PATH", str(tmp_path / "target"))
    database, mirror = tmp_path / "concord.duckdb", tmp_path / "concord_spark.duckdb"
    for path, value in ((database, 1), (mirror, 2)):
        with duckdb.connect(str(path)) as con:
            con.execute(f"create schema marts; create table marts.t as select {value} as x")
    monkeypatch.setenv("CONCORD_DB_PATH", str(database))
    publish(mirror, tmp_path / "serving", skip_quality_gate=True)
    text = status_report(tmp_path / "serving")
    assert f"  published from {mirror}, Spark's build, as it is now (same size and " in text
    publish(database, tmp_path / "serving", skip_quality_gate=True)
    assert f"  published from {database} as it is now" in status_report(tmp_path / "serving")


def status_of(serving: Path | None, database: Path, **kwargs) -> str:
    """What `concord status` prints, with ``database`` as the build database."""
    env = {**os.environ, "CONCORD_DB_PATH": str(database)}
    result = concord("status", *(["--serving", str(serving)] if serving else []), env=env, **kwargs)
    assert result.returncode == 0, result.stderr
    return result.stdout


def publish_command(text: str) -> str:
    """The command `concord status` says publishes the build."""
    found = re.findall(r"run `(concord build [^`]*)`", text)
    assert len(set(found)) == 1, text
    return found[0]


@pytest.mark.warehouse
def test_status_says_when_the_build_is_not_what_is_published_and_how_to_publish_it(
    warehouse_quality, tmp_path
):
    """After a plain `dbt build` the serving file, its Parquet and the report stay at the last
    publish: status says so, from the build file's bytes, with the command that publishes
    it; that command works, and then status says the published version is the build."""
    warehouse, _, checked = warehouse_quality
    project = copy_project(tmp_path / "project")
    # the quality stage checks the suites of the project it runs in
    shutil.copytree(PROJECT_ROOT / "quality", project / "quality")
    database = tmp_path / "warehouse" / "concord.duckdb"
    database.parent.mkdir()
    shutil.copyfile(warehouse, database)  # a build that nothing has published yet
    # the session's checkpoint of the same tables stands for this copy (its verdict kept)
    shutil.copytree(checked, database.parent / "quality")
    serving = database.parent / "serving"
    text = status_of(None, database, cwd=project)
    assert f"Nothing published in {serving} yet; the build database {database} is not " in text
    command = publish_command(text)

    ran = subprocess.run(
        [str(CONCORD), *shlex.split(command)[1:]],
        cwd=project,
        env={**os.environ, "CONCORD_DB_PATH": str(database)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    text = status_of(None, database, cwd=project)
    assert f"  published from {database} as it is now (same size and SHA-256)\n" in text
    assert "run `" not in text
    (version,) = re.findall(r"^Published version (\S+) ", text, re.MULTILINE)
    # the serving file, its Parquet and the report are that version
    catalogue = json.loads((serving / "parquet" / "catalogue.json").read_text())
    assert catalogue["version"] == version
    assert f"Serving version {version};" in (database.parent / "report" / "index.html").read_text()

    # a plain dbt build rewrites the file; here one more table, its bytes changed the same way
    with duckdb.connect(str(database)) as con:
        con.execute("create table marts.rebuilt as select 1 as x")
    text = status_of(None, database, cwd=project)
    assert (
        f"  the build database {database} has changed since version {version} was published: "
        "the serving file, its Parquet files and the report still show that version; to "
        f"publish the build, run `{command}`\n"
    ) in text
    assert "as it is now" not in text


def test_status_reads_a_version_published_before_it_recorded_its_build(fake_serving, tmp_path):
    database = tmp_path / "concord.duckdb"
    duckdb.connect(str(database)).close()
    text = status_of(fake_serving, database)
    assert f"Published version {NEW} -> " in text
    assert (
        f"  version {NEW} does not record which build it was published from (it was published "
        f"before Concord recorded that), so whether {database} is published is unknown; to "
        "publish the build, run `concord build --stage quality --stage publish --stage report "
        "--stage summary`\n"
    ) in text


@pytest.mark.parametrize(
    ("lost", "reason"),
    [
        (f"versions/{NEW}", f"current points at versions/{NEW}, which is missing"),
        ("current", "current is missing"),
        ("concord.duckdb", "concord.duckdb is missing"),
    ],
)
def test_status_without_a_current_version_says_which_versions_are_there(
    fake_serving, tmp_path, lost, reason
):
    """The version `current` points at removed, or a link of the serving folder lost: the
    older versions are still there, and status says so, and what to run."""
    path = fake_serving / lost
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
    database = tmp_path / "concord.duckdb"
    duckdb.connect(str(database)).close()
    text = status_of(fake_serving, database)
    kept = [OLD] if lost.startswith("versions/") else [OLD, NEW]
    assert (
        f"No current version in {fake_serving}: {reason}, so readers find nothing; "
        f"{len(kept)} version(s) in {fake_serving / 'versions'}:\n"
        f"    {OLD}: quality skipped\n"
        + (f"    {NEW}: quality passed\n" if NEW in kept else "")
        + f"  run `concord build --stage quality --stage publish --stage report --stage summary` "
        f"to publish the build database {database} again\n"
    ) in text
    assert "Nothing published" not in text


@pytest.mark.warehouse
def test_a_failing_test_is_stored_and_listed_in_dq_test_failures(tmp_path):
    """A duplicate rating fails the warn-severity uniqueness test of stg_rater__ratings: the
    build goes on, the failing rows are kept in schema dq_failures, and the on-run-end hook
    lists the test in marts.dq_test_failures (which publish copies)."""
    project = copy_project(tmp_path / "project")
    seed = project / "seeds" / "rater" / "rater_ratings.csv"
    first_row = seed.read_text(encoding="utf-8").splitlines()[1]
    with seed.open("a", encoding="utf-8") as f:
        f.write(first_row + "\n")
    database = tmp_path / "concord.duckdb"
    run_dbt(["build", "--select", "stg_rater__ratings"], project, database)
    with duckdb.connect(str(database), read_only=True) as con:
        rows = con.execute(
            "select model_name, status, n_failures, failures_relation from marts.dq_test_failures"
        ).fetchall()
        assert len(rows) == 1, rows
        model, status, n_failures, relation = rows[0]
        assert (model, status, n_failures) == ("stg_rater__ratings", "warn", 1)
        assert '"dq_failures".' in relation
        dataset, item, rater = first_row.split(",")[:3]
        stored = con.execute(f"select dataset, item_id, rater_id from {relation}").fetchall()
        assert stored == [(dataset, item, rater)]


@pytest.mark.parametrize("command", [["demo"], ["run", "--model", "x"]])
def test_the_probe_without_torch_says_how_to_install_it(command, tmp_path):
    """`make build` installs no torch, by design: scoring says what to install, in one line;
    listing the landed runs needs no torch at all."""
    hide = "import sys; sys.modules['torch'] = None; sys.modules['transformers'] = None; "
    run = "from probe.__main__ import main; from probe.errors import run_main; run_main(main, {})"
    result = subprocess.run(
        [sys.executable, "-c", hide + run.format([*command, "--landing-dir", str(tmp_path)])],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        "error: scoring needs the probe's extra (torch, transformers): transformers is not "
        "installed",
        "  install it with `make probe-install` (seconds with uv: torch's CPU wheel and "
        "transformers), then run the command again (the demo takes about 10 s)",
    ]
    listed = subprocess.run(
        [sys.executable, "-c", hide + run.format(["runs", "--landing-dir", str(tmp_path)])],
        capture_output=True,
        text=True,
        check=False,
    )
    assert listed.returncode == 0, listed.stderr


# ------------------------------------------------------------------------ shell completion


def test_help_offers_shell_completion():
    result = concord("--help")
    assert result.returncode == 0, result.stderr
    assert "--install-completion [SHELL]" in result.stdout
    assert "--show-completion [SHELL]" in result.stdout
    assert "bash, zsh, fish, powershell, pwsh" in " ".join(result.stdout.split())


@pytest.mark.parametrize(
    ("shell", "line"),
    [
        ("bash", "complete -o default -F _concord_completion concord"),
        ("zsh", "#compdef concord"),
        ("fish", "complete --command concord"),
    ],
)
def test_show_completion_prints_the_script_of_the_shell_named(shell, line):
    result = concord("--show-completion", shell)
    assert result.returncode == 0, result.stderr
    assert line in result.stdout and "_CONCORD_COMPLETE=complete_" in result.stdout
    assert not result.stderr


@pytest.mark.parametrize("found", ["zsh", None])
def test_show_completion_alone_is_for_the_shell_it_runs_in(found, monkeypatch, capsys):
    import shellingham

    from concord_io.cli import main

    def detect_shell():
        if found is None:
            raise shellingham.ShellDetectionFailure()
        return found, f"/bin/{found}"

    monkeypatch.setattr(shellingham, "detect_shell", detect_shell)
    with pytest.raises(SystemExit) as exit_:
        main(["--show-completion"])
    shown = capsys.readouterr()
    if found:
        assert exit_.value.code == 0 and "#compdef concord" in shown.out
        return
    assert exit_.value.code == 2 and not shown.out
    assert shown.err.splitlines() == [
        "error: --show-completion: cannot tell which shell this is",
        "  name it: `concord --show-completion bash` (or zsh, fish, powershell, pwsh)",
    ]


def test_an_unknown_shell_is_refused_in_one_line():
    result = concord("--show-completion", "tcsh")
    assert result.returncode == 2
    first, *rest = result.stderr.splitlines()
    assert first.startswith("error: ") and "'tcsh' is not one of 'bash'" in first
    assert len(rest) <= 1 and not result.stdout


def test_install_completion_writes_the_script_and_sources_it(tmp_path):
    result = concord(
        "--install-completion", "bash", env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    )
    assert result.returncode == 0, result.stderr
    script = tmp_path / ".bash_completions" / "concord.sh"
    assert f"completion installed in {script}" in result.stdout
    assert "_CONCORD_COMPLETE=complete_bash" in script.read_text()
    assert f"source '{script}'" in (tmp_path / ".bashrc").read_text()


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("concord pro", ["probe"]),
        ("concord probe ", ["run", "demo", "runs", "mcq"]),
        ("concord --show-completion ", ["bash", "zsh", "fish", "powershell", "pwsh"]),
    ],
)
def test_the_completion_script_gets_completions_from_concord(words, expected):
    """What the bash script runs on TAB: concord with the words typed so far."""
    env = {
        "PATH": "/usr/bin:/bin",
        "_CONCORD_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split(" ")) - 1),
    }
    result = concord(env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == expected


# ------------------------------------------------------------------------------- the probe


def test_concord_probe_help_lists_the_probe_commands():
    result = concord("probe", "--help")
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert text.startswith("Usage: concord probe [OPTIONS] COMMAND [ARGS]...")
    assert "usage: python -m probe" not in text  # not argparse's page
    assert "  run   Score the seed stimuli with models and land runs." in text
    assert "  demo  Build a tiny random model and run the probe on it." in text
    assert "  runs  List the landed runs, or remove one." in text
    assert "`concord probe run --help`" in text
    # alone, the same page (on stderr, status 2: no command given), not an error line
    alone = concord("probe")
    assert alone.returncode == 2 and alone.stderr.startswith("Usage: concord probe")
    assert "error" not in alone.stderr


def test_concord_alone_shows_its_help_not_an_error():
    result = concord()
    assert result.returncode == 2
    assert result.stderr.startswith("Usage: concord [OPTIONS] COMMAND")
    assert "error" not in result.stderr


def test_probe_commands_pass_everything_to_the_probe(tmp_path):
    landing = tmp_path / "landing"
    listed = concord("probe", "runs", "--landing-dir", str(landing))
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == f"no probe run landed in {landing}\n"
    helped = concord("probe", "run", "--help")
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("usage: python -m probe run")
    assert "--models-file" in helped.stdout
    assert "score the seed stimuli with models and land runs." in helped.stdout
    # --debug (which concord's own handling takes off the line) reaches the probe
    env = {"PATH": "/usr/bin:/bin"}
    remove = ["probe", "runs", "remove", "nope", "--landing-dir", str(landing)]
    quiet, loud = concord(*remove, env=env), concord("--debug", *remove, env=env)
    assert quiet.returncode == loud.returncode == 2
    assert "Traceback" not in quiet.stderr and "Traceback" in loud.stderr
    assert quiet.stderr.startswith("error: run id 'nope' is not landed")


def test_concord_and_the_probe_word_the_commands_alike():
    from concord_io.cli import PROBE_COMMANDS
    from probe.__main__ import COMMANDS, build_parser

    assert PROBE_COMMANDS == COMMANDS
    (commands,) = [a for a in build_parser()._actions if a.dest == "command"]
    assert list(commands.choices) == list(COMMANDS)


# ------------------------------------------------------------------- progress of the build

DBT_LIKE = """
import time
print("12:00:00  Running with dbt=1.11.16")
print("12:00:01  1 of 2 START sql table model marts.a ................ [RUN]")
print("12:00:01  1 of 2 OK created sql table model marts.a ........... [OK in 0.01s]")
time.sleep(0.3)
print("12:00:02  2 of 2 OK created sql table model marts.b ........... [OK in 0.02s]")
time.sleep(0.3)
print("12:00:02  Done. PASS=2 WARN=0 ERROR=0 SKIP=0 TOTAL=2")
"""


def test_on_a_terminal_the_dbt_stage_shows_dbts_latest_n_of_n(tmp_path):
    stages = [Stage("dbt-build", [[sys.executable, "-c", DBT_LIKE]])]
    out = io.StringIO()
    terminal = Console(file=out, force_terminal=True, width=120, color_system=None)
    run_build(tmp_path / "w.duckdb", stages, tmp_path / "b.log", terminal)
    shown = out.getvalue()
    assert "[1/1] dbt-build: 2 of 2 OK created sql table model marts.b" in shown
    assert "marts.b ...." not in shown  # dbt's dots and timing left out
    assert "Done. PASS=2" in shown  # the stage's last word, as before
    # a narrow terminal: the line is cut, never wrapped onto the next
    narrow = io.StringIO()
    terminal = Console(file=narrow, force_terminal=True, width=40, color_system=None)
    run_build(tmp_path / "w.duckdb", stages, tmp_path / "b.log", terminal)
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", narrow.getvalue())  # no cursor moves
    frames = [f for f in re.split(r"[\r\n]", plain) if "dbt-build: 2 of 2" in f]
    assert frames and all(f.endswith("…") and len(f) <= 40 for f in frames), frames
    # not on a terminal (a pipe, CI): no status line at all
    piped = io.StringIO()
    run_build(tmp_path / "w.duckdb", stages, tmp_path / "b.log", Console(file=piped))
    assert " of 2 " not in piped.getvalue() and "[1/1] dbt-build ok" in piped.getvalue()


def test_the_log_is_written_line_by_line_as_the_build_runs(tmp_path):
    """The log has a stage's first lines while it still runs (`tail -f` follows a build):
    the step below waits, up to 20 s, for this test to see its first line in the log."""
    import threading

    go, log = tmp_path / "go", tmp_path / "b.log"
    step = (
        f"import pathlib, time\nprint('1 of 2 waiting')\nfor _ in range(200):\n"
        f"    if pathlib.Path({str(go)!r}).exists(): break\n    time.sleep(0.1)\n"
        f"else: raise SystemExit('not released')\nprint('2 of 2 done')\n"
    )
    stages = [Stage("slow", [[sys.executable, "-c", step]])]
    errors: list[BaseException] = []

    def build() -> None:
        try:
            run_build(tmp_path / "w.duckdb", stages, log, Console(file=io.StringIO()))
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    thread = threading.Thread(target=build)
    thread.start()

    def logged() -> list[str]:  # whole lines: the command line in the log holds the script
        return log.read_text(encoding="utf-8").splitlines() if log.exists() else []

    for _ in range(150):
        if "1 of 2 waiting" in logged():
            break
        time.sleep(0.1)
    else:
        go.touch()
        thread.join()
        raise AssertionError("the log had nothing of the running step:\n" + log.read_text())
    assert "2 of 2 done" not in logged()
    go.touch()
    thread.join(timeout=30)
    assert not errors, errors
    assert logged()[-2:] == ["1 of 2 waiting", "2 of 2 done"]


# ------------------------------------------------------------------------------ installs


def extras_installed(target: str, tmp_path) -> set[str]:
    """The extras of the project that `make TARGET` would install in a fresh environment."""
    result = subprocess.run(
        ["make", "-n", "-B", target, f"VENV={tmp_path / 'venv'}"],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        check=True,
    )
    installs = re.findall(r"uv pip install .* -e '?\.\[([\w,]+)\]", result.stdout)
    assert installs, result.stdout
    return {extra for extras in installs for extra in extras.split(",")}


def test_install_spark_installs_no_torch(tmp_path):
    """The Spark target needs dbt-spark and pyspark, not the probe's torch."""
    assert extras_installed("install-spark", tmp_path) == {"spark"}


@pytest.mark.parametrize("target", ["test", "test-spark"])
def test_the_test_targets_install_everything(target, tmp_path):
    assert {"probe", "dev", "spark"} <= extras_installed(target, tmp_path)


def test_status_lists_every_cross_lingual_run_landed(tmp_path, monkeypatch):
    """`concord status` names each landed cross-lingual run (it named none: the user
    queried model_scorecard to see what is loaded): model and variant, tasks, languages,
    items and answers, its source and when it landed, its run id, whether the published
    version holds it, and its accuracy there where graded (pooled over its languages)."""
    from test_report import serving_file

    from concord_io import cli
    from concord_io.landing import land
    from concord_io.project import PROJECT_ROOT

    landing = tmp_path / "landing"
    land(PROJECT_ROOT, landing)
    monkeypatch.setenv("CONCORD_LANDING_DIR", str(landing))
    monkeypatch.setenv("DBT_TARGET_PATH", str(tmp_path / "target"))
    text = status_report(tmp_path / "serving").splitlines()
    start = text.index(f"Cross-lingual runs landed in {landing / 'mcq'}: 8")
    gpt = next(line for line in text[start:] if line.startswith("  GPT-4o (base): "))
    assert gpt.startswith(
        "  GPT-4o (base): task(s) xcloze, language(s) en, fa, it, 60 item(s), 180 answer(s); "
        "seeds/mcq/answers/GPT4o_Merged_Multilingual.csv, landed "
    )
    assert gpt.endswith("UTC; gpt-4o--base--ae5f52cc  (not built)")
    published = serving_file(
        tmp_path / "serving.duckdb",
        {
            "fct_mcq_answers": "select 'gpt-4o--base--ae5f52cc' as run_id",
            "mcq_accuracy": "select * from (values ('gpt-4o--base--ae5f52cc', 60.0, 50), "
            "('gpt-4o--base--ae5f52cc', 40.0, 50), ('mbert--base--10158d08', null, 0)) "
            "as t(run_id, accuracy_pct, n_gold_items)",
        },
    )
    lines = cli._mcq_run_lines(landing, published)
    gpt = next(line for line in lines if line.startswith("  GPT-4o (base): "))
    assert "180 answer(s), accuracy 50.0 %; seeds/" in gpt and gpt.endswith("  (published)")
    mbert = next(line for line in lines if line.startswith("  mBERT (base): "))
    assert "accuracy" not in mbert and mbert.endswith("  (not built)")
    # a model the aliases rename is named as the marts name it, the harness's name beside
    aliases = {"GPT-4o": "GPT-4o (2024-05)", "mBERT": "mBERT"}
    monkeypatch.setattr("concord_io.landing.seeds.read_model_aliases", lambda root: aliases)
    lines = cli._mcq_run_lines(landing, published)
    assert any(line.startswith("  GPT-4o (2024-05) [GPT-4o] (base): task(s)") for line in lines)
    assert any(line.startswith("  mBERT (base): ") for line in lines)


def test_concord_remove_unregisters_a_run_and_the_landing_follows(
    project_copy, monkeypatch, capsys
):
    """`concord remove RUN_ID`: a wide run's registry line goes and its landed folder with it
    (its file kept, moved out of the inputs, unless --delete-files); a run not landed is
    refused naming what lists them. No file is edited by hand, no SQL."""
    from concord_io.cli import main
    from concord_io.landing import land

    monkeypatch.chdir(project_copy)
    landing = project_copy / "warehouse" / "landing"
    land(project_copy, landing)
    mbert = project_copy / "seeds" / "mcq" / "answers" / "mBERT_Merged_Multilingual.csv"

    def concord_(*args: str) -> tuple[int, list[str]]:
        with pytest.raises(SystemExit) as exit_:
            main(list(args))
        out = capsys.readouterr()
        return exit_.value.code, (out.out + out.err).splitlines()

    code, lines = concord_("remove", "mbert--base--10158d08")
    assert (
        code == 0
        and lines[0] == "unregistered mcq_answer_registry line mBERT_Merged_Multilingual.csv"
    )
    assert "removed   mcq/run_id=mbert--base--10158d08  no longer registered" in lines
    assert not (landing / "mcq" / "run_id=mbert--base--10158d08").exists()
    # kept out of the inputs (a file there without its line would stop every landing)
    moved = project_copy / "warehouse" / "removed" / "mbert--base--10158d08"
    kept = moved / "seeds__mcq__answers__mBERT_Merged_Multilingual.csv"
    assert f"moved        seeds/mcq/answers/mBERT_Merged_Multilingual.csv to {kept}" in lines[1]
    assert kept.is_file() and not mbert.exists()
    assert "mBERT" not in (mbert.parent.parent / "mcq_answer_registry.csv").read_text()
    code, lines = concord_("remove", "mbert--base--10158d08")
    assert code == 2 and "run mbert--base--10158d08 is not landed in" in lines[0]
    assert "concord status" in lines[1]
    code, lines = concord_("remove", "xlm-r-large--base--74e5bfaa", "--delete-files")
    assert code == 0 and "deleted      seeds/mcq/answers/XLM-R_Merged_Multilingual.csv" in lines
    assert not (mbert.parent / "XLM-R_Merged_Multilingual.csv").exists()
