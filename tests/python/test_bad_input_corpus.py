"""The bad-input corpus (tests/bad_input/cases.yml), each case through the real dbt command
on a fresh copy of the project, plus the probe's cases (landing and seeds), which go
through the probe's own writer and the export rather than through dbt alone.

Every case ends in exactly one of: an error naming the file or seed, the row and the
column; quarantine with the standard columns and reconciled counts; or a correct load.
"""

from __future__ import annotations

import csv
import errno
import hashlib
import io
import json
import math
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pytest
import yaml
from probe_fakes import fake_run_tables

from concord_io.project import PROJECT_ROOT, copy_project, run_dbt

CORPUS = PROJECT_ROOT / "tests" / "bad_input" / "cases.yml"
_CORPUS = yaml.safe_load(CORPUS.read_text(encoding="utf-8"))
BATCHES = _CORPUS["batches"]
# input cases mutate a file; the hardening cases (a `runner`) run a command on settings
CASES = [c for c in _CORPUS["cases"] if "runner" not in c]
HARDENING = [c for c in _CORPUS["cases"] if "runner" in c]


# --- mutations -------------------------------------------------------------------------------


def read_rows(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f))


def write_rows(path: Path, rows: list[list[str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def csv_lines(path: Path) -> list[str]:
    """The file's records as CSV text, one string per record (quoted newlines kept)."""
    out = []
    for row in read_rows(path):
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="").writerow(row)
        out.append(buffer.getvalue())
    return out


def land_probe_run(design_seed: Path, run_id: str, **changes) -> None:
    """A probe run over the design of ``design_seed``'s folder, written straight into the
    copy's landing folder (bypassing the probe's writer, as a hand-edited or foreign file
    would): ``set`` {table, column, value} in every row, ``drop_file`` a table, or
    ``drop_column`` {table, column}."""
    import pyarrow.parquet as pq

    from probe.stimuli import load_design

    project = design_seed.parents[2]
    folder = project / "landing" / "probe" / f"run_id={run_id}"
    folder.mkdir(parents=True)
    for name, table in fake_run_tables(load_design(design_seed.parent), run_id).items():
        if name == changes.get("drop_file"):
            continue
        if changes.get("set", {}).get("table") == name:
            column, value = changes["set"]["column"], changes["set"]["value"]
            index = table.schema.get_field_index(column)
            values = pa.array([value] * table.num_rows, table.schema.field(column).type)
            table = table.set_column(index, column, values)
        if changes.get("drop_column", {}).get("table") == name:
            table = table.drop_columns([changes["drop_column"]["column"]])
        pq.write_table(table, folder / f"{name}.parquet")


def mutate(path: Path, op: str, **args) -> None:
    if op == "land_probe_run":
        land_probe_run(path, **args)
        return
    if op == "replace_with":  # under the file's name, what is not a regular file
        path.unlink()
        if args["kind"] == "fifo":
            os.mkfifo(path)
        elif args["kind"] == "link_to_device":
            path.symlink_to("/dev/zero")
        else:
            assert args["kind"] == "folder", args
            path.mkdir()
        return
    if op == "prepend_bom":
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
        return
    if op == "line_endings":
        records = csv_lines(path)
        style = args["style"]
        ends = {"crlf": ["\r\n"], "cr": ["\r"], "mixed": ["\r\n", "\n"]}[style]
        path.write_bytes(
            "".join(r + ends[i % len(ends)] for i, r in enumerate(records)).encode("utf-8")
        )
        return
    if op == "encode":  # the same text in another encoding (latin-1, utf-16 ...)
        text = path.read_text(encoding="utf-8-sig")
        path.write_bytes(text.encode(args["encoding"], errors=args.get("errors", "strict")))
        return
    if op == "replace_text":  # raw text, as no CSV writer would write it
        text = path.read_text(encoding="utf-8-sig")
        assert args["old"] in text, (path, args["old"])
        path.write_text(text.replace(args["old"], args["new"], 1), encoding="utf-8")
        return
    if op == "truncate":
        header = csv_lines(path)[0] + "\n" if args["keep_header"] else ""
        path.write_text(header, encoding="utf-8")
        return
    rows = read_rows(path)
    header = rows[0]
    if op == "drop_last_field":
        rows[args["row"]] = rows[args["row"]][:-1]
    elif op == "add_field":
        rows[args["row"]] = [*rows[args["row"]], args["value"]]
    elif op == "rename_column":
        header[header.index(args["column"])] = args["to"]
    elif op == "drop_column":
        i = header.index(args["column"])
        rows = [r[:i] + r[i + 1 :] for r in rows]
    elif op == "move_column":
        i = header.index(args["column"])
        rows = [[*r[:i], *r[i + 1 :]] for r in rows]
        for old, r in zip(read_rows(path), rows, strict=True):
            r.insert(args["to_index"], old[i])
    elif op == "set_cell":
        rows[args["row"]][header.index(args["column"])] = args["value"]
    elif op == "duplicate_row":
        rows.append(list(rows[args["row"]]))
    elif op == "append_row":
        rows.append(list(args["values"]))
    else:
        raise ValueError(f"unknown mutation {op!r}")
    write_rows(path, rows)


# --- the dbt cases ---------------------------------------------------------------------------


def scalar(con, sql: str):
    return con.execute(sql).fetchone()[0]


QUARANTINE_COLUMNS = ["source", "source_row", "record_key", "column_name", "value"]


def check_quarantine(con, spec: dict) -> None:
    columns = "source, source_row, record_key, column_name, value, reason"
    order = "order by source_row, record_key, reason"
    got = con.execute(
        f"select {columns} from {spec['relation']} where {spec['where']} {order}"
    ).fetchall()
    if "study" in spec:  # the same rows reach the table users look at
        in_marts = con.execute(
            f"select {columns} from marts.dq_quarantine "
            f"where study = ? and ({spec['where']}) {order}",
            [spec["study"]],
        ).fetchall()
        assert in_marts == got, (in_marts, got)
    for source, *_rest, reason in got:
        assert source and reason, f"quarantine row without source or reason: {got}"
    if "count" in spec:
        assert len(got) == spec["count"], got
        assert all(spec["reason_contains"] in row[5] for row in got), got
    if "rows" in spec:
        assert len(got) == len(spec["rows"]), got
        for row, want in zip(got, spec["rows"], strict=True):
            record = dict(zip(QUARANTINE_COLUMNS, row[:5], strict=True))
            for key, value in want.items():
                if key == "reason_contains":
                    assert value in row[5], (row, want)
                else:
                    assert record[key] == value, (key, row, want)


def check_quarantine_warned(con, spec: dict, output: str, database: Path) -> None:
    """The build ends with a warning counting each study's quarantined rows (the on-run-end
    hook), and the summary prints the same counts from marts.dq_quarantine."""
    from concord_io.cli.summary import summarise

    study = spec.get("study")
    if study is None:
        return
    (n,) = con.execute(
        "select count(*) from marts.dq_quarantine where study = ?", [study]
    ).fetchone()
    (warning,) = [line for line in output.splitlines() if "quarantined input rows" in line]
    assert f"{study}: {n}" in warning, (warning, study, n)
    (summary_line,) = [
        line for line in summarise(database).splitlines() if "quarantined input rows" in line
    ]
    assert summary_line.startswith("WARNING:") and f"{study} {n}" in summary_line, summary_line


@dataclass
class Outcome:
    result: subprocess.CompletedProcess
    database: Path
    node_status: dict[str, str]  # node name -> its status in dbt's result


def run_cases(cases: list[dict], command: list[str], destination: Path) -> Outcome:
    """Mutate one fresh project copy with every case's mutation and run ``command`` once."""
    project = copy_project(destination)
    database = project / "concord.duckdb"
    for case in cases:
        if case.get("land_first"):
            run_dbt(case["command"], project, database)
    for case in cases:
        steps = case["mutation"] if isinstance(case["mutation"], list) else [case["mutation"]]
        for step in steps:
            step = dict(step)
            mutate(project / case["file"], step.pop("op"), **step)
    if command == ["reader"]:  # the landing alone, as `concord land` runs it
        result = subprocess.run(
            [
                *(sys.executable, "-m", "concord_io.cli", "--project-dir", str(project)),
                *("land", "--landing", str(project / "landing")),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
    else:
        result = run_dbt(command, project, database, check=False)
    # what each node did, as dbt returned it (none where dbt stopped before its nodes)
    node_status = {
        node.node.unique_id.split(".")[-1]: str(node.status)
        for node in getattr(getattr(result, "result", None), "results", None) or []
    }
    return Outcome(result, database, node_status)


@pytest.fixture(scope="module")
def corpus_run(tmp_path_factory):
    """Runs each batch (or lone case) once, on first use."""
    done: dict[str, Outcome] = {}

    def get(case: dict) -> Outcome:
        key = case.get("batch") or case["id"]
        if key not in done:
            if "batch" in case:
                members = [c for c in CASES if c.get("batch") == key]
                command = BATCHES[key]["command"]
            else:
                members, command = [case], case["command"]
            done[key] = run_cases(members, list(command), tmp_path_factory.mktemp(key))
        return done[key]

    return get


@pytest.mark.warehouse
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_bad_input_case(case, corpus_run):
    outcome = corpus_run(case)
    result, expect = outcome.result, case["expect"]
    output = result.stdout[-8000:]

    if expect["outcome"] == "error":
        assert result.returncode != 0, f"{case['id']}: dbt should have failed:\n{output}"
        for text in expect["messages"]:
            assert text in result.stdout, f"{case['id']}: {text!r} not in:\n{output}"
        return

    if "node" in expect:  # a seed batch's own model, whatever the batch's other cases
        assert outcome.node_status.get(expect["node"]) == "success", outcome.node_status
    else:
        assert result.returncode == 0, f"{case['id']}: dbt failed:\n{output}"
    with duckdb.connect(str(outcome.database), read_only=True) as con:
        for check in expect.get("checks", []):
            rows = [list(r) for r in con.execute(check["sql"]).fetchall()]
            assert rows == check["rows"], (case["id"], check["sql"], rows)
        if expect["outcome"] == "quarantined":
            check_quarantine(con, expect["quarantine"])
            check_quarantine_warned(con, expect["quarantine"], result.stdout, outcome.database)
            counts = {k: scalar(con, sql) for k, sql in expect["reconcile"].items()}
            assert counts["quarantined"] > 0
            assert counts["rows_in"] == counts["counted"] + counts["quarantined"], counts


def test_corpus_is_well_formed():
    """Every case names its input, a known mutation and one known outcome."""
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids))
    for case in CASES:
        assert case["input"] and (PROJECT_ROOT / case["file"]).is_file(), case["id"]
        outcome = case["expect"]["outcome"]
        assert outcome in {"error", "quarantined", "loaded"}, case["id"]
        if outcome == "error":
            assert case["expect"]["messages"], case["id"]
        if outcome == "quarantined":
            assert set(case["expect"]["reconcile"]) == {"rows_in", "counted", "quarantined"}
        assert ("batch" in case) != ("command" in case), case["id"]
        assert case.get("batch", "command") in {*BATCHES, "command"}, case["id"]
    for batch in BATCHES:  # the cases of a batch touch different files or different rows
        touched = [
            (c["file"], step.get("row"), step.get("column"), step.get("run_id"))
            for c in CASES
            if c.get("batch") == batch
            for step in (c["mutation"] if isinstance(c["mutation"], list) else [c["mutation"]])
        ]
        assert len(touched) == len(set(touched)), batch


# --- the probe's cases -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def design():
    from probe.stimuli import load_design

    return load_design()


@pytest.mark.parametrize(
    ("table", "column", "value"),
    [
        ("scores", "logprob", math.nan),
        ("scores", "logprob", math.inf),
        ("scores", "token_logprobs", -math.inf),
    ],
)
def test_probe_writer_refuses_nan_and_infinite_scores(design, tmp_path, table, column, value):
    """probe scores with NaN or +inf never land: the writer names table and column, and the
    landing folder holds nothing the dbt glob could read."""
    from probe.landing import LandingError, land_run

    tables = fake_run_tables(design, "bad-run")
    rows = tables[table].to_pylist()
    if column == "token_logprobs":
        rows[3][column] = [rows[3][column][0], value]
    else:
        rows[3][column] = value
    tables[table] = pa.Table.from_pylist(rows, schema=tables[table].schema)
    with pytest.raises(LandingError, match=f"{table}.{column}: 1 NaN or infinite"):
        land_run(tmp_path, "bad-run", tables)
    assert not list(tmp_path.rglob("*.parquet"))


@pytest.mark.probe
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_probe_scorer_refuses_non_finite_token_logprobs(bad):
    """A NaN or infinite token log-prob refuses the run, naming its stimulus."""
    from probe.runner import build_tables
    from probe.scoring import NonFiniteScoreError, Request
    from probe.stimuli import load_design

    design = load_design()
    k = len(design.candidates)
    requests = [Request(i, (1, 2), ((3,),) * k) for i in range(len(design.stimuli))]
    token_lps = [[np.array([-1.0])] * k for _ in requests]
    build_tables("ok", design, requests, token_lps)  # finite: builds
    token_lps[6] = [np.array([-1.0])] * (k - 1) + [np.array([bad])]
    stimulus = design.stimuli[6]
    with pytest.raises(NonFiniteScoreError, match=f"stimulus 7 \\(msg {stimulus.msg_id},"):
        build_tables("bad", design, requests, token_lps)


NASTY_NAME = 'O\'Brien; "Bobby"\nمحمد‎'
NASTY_MESSAGE = "Can we meet at 10; or \"later\"?\nRe: پیام, 'quoted' — ok"


def test_probe_names_and_messages_with_quotes_semicolons_newlines_and_rtl(project_copy, tmp_path):
    """Quotes, semicolons, newlines and right-to-left text in the probe seeds survive the
    seeds' landing, the probe's landing, the marts, the publish and the CSV export byte for
    byte."""
    from concord_io.serving.export import export_probe
    from concord_io.serving.publish import publish
    from probe.landing import land_run
    from probe.stimuli import load_design

    seeds = project_copy / "seeds" / "probe"
    mutate(seeds / "probe_names.csv", "set_cell", row=1, column="sender_name", value=NASTY_NAME)
    mutate(seeds / "probe_messages.csv", "set_cell", row=1, column="message", value=NASTY_MESSAGE)
    design = load_design(seeds)
    database = project_copy / "concord.duckdb"
    landing = project_copy / "landing"
    land_run(landing, "nasty-run", fake_run_tables(design, "nasty-run"))
    run_dbt(
        [
            "build",
            "--select",
            "+path:models/marts/probe",
            "--vars",
            "{probe_permutations: 200, bootstrap_resamples: 200}",
        ],
        project_copy,
        database,
        extra_env={"CONCORD_LANDING_DIR": str(landing)},
        artifacts=True,  # the manifest that publish reads
    )
    with duckdb.connect(str(database), read_only=True) as con:
        (seeded,) = con.execute(
            "select sender_name from read_parquet(?) where sender_name like 'O''Brien%'",
            [str(landing / "seeds" / "seed=probe_names" / "probe_names.parquet")],
        ).fetchone()
        in_marts = con.execute(
            "select distinct sender_name, stimulus from marts.probe_indices_per_name "
            "where msg_id = 1 and sender_name like 'O''Brien%'"
        ).fetchall()
    assert seeded == NASTY_NAME
    assert in_marts == [(NASTY_NAME, f"Hi, I'm {NASTY_NAME}. {NASTY_MESSAGE}")]
    serving = project_copy / "serving"
    # names, not the quality gate, are under test here (the checkpoint has its own tests)
    publish(database, serving, project_copy / "target" / "manifest.json", skip_quality_gate=True)
    files = export_probe(tmp_path / "export", "nasty-run", serving)
    stimuli = next(f for f in files if f.name == "stimuli_ambiguous_10_two_names.csv")
    with stimuli.open(encoding="utf-8", newline="") as f:
        exported = list(csv.DictReader(f))
    assert len(exported) == len(design.stimuli)
    nasty = [r for r in exported if r["name"] == NASTY_NAME]
    assert [r["text"] for r in nasty if r["msg_id"] == "1"] == [
        f"Hi, I'm {NASTY_NAME}. {NASTY_MESSAGE}"
    ]


# --- hardening (issue 11): settings, environment, serving folder, locks, disk, flags -----


@pytest.fixture(scope="module")
def settings_check(tmp_path_factory):
    """Runs the run-start check (check_run_settings) with given vars, in process, on the
    project parsed once; returns (success, every message dbt logged)."""
    from concord_io.landing import land_seeds
    from concord_io.project import invoke_dbt

    work = tmp_path_factory.mktemp("settings")
    land_seeds(PROJECT_ROOT, work)  # probe_baseline_group is checked against the landed names
    flags = ["--profiles-dir", str(PROJECT_ROOT), "--project-dir", str(PROJECT_ROOT)]
    flags += ["--target-path", str(work / "target"), "--log-path", str(work / "logs")]
    env = {"CONCORD_DB_PATH": str(work / "concord.duckdb"), "CONCORD_LANDING_DIR": str(work)}
    parsed = invoke_dbt(["parse", "--quiet", *flags], env, PROJECT_ROOT)
    assert parsed.returncode == 0, parsed.stdout[-3000:]

    def check(variables: dict) -> tuple[bool, str]:
        logged: list[str] = []
        result = invoke_dbt(
            ["run-operation", "check_run_settings", "--vars", json.dumps(variables), *flags],
            env,
            PROJECT_ROOT,
            manifest=parsed.result,
            callbacks=[lambda e: logged.append(e.info.msg)],
        )
        return result.returncode == 0, "\n".join(logged)

    return check


def tiny_build(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(path)) as con:
        con.execute("create schema marts")
        con.execute(
            "create table marts.label as select 'first' as label, range as i from range(20)"
        )
    return path


def tree_state(path: Path) -> dict[str, str]:
    """Every entry under ``path`` (or the file itself): content hash or symlink target."""
    if not path.exists() and not path.is_symlink():
        return {}
    entries = [path] if path.is_file() else sorted(path.rglob("*"))
    out = {}
    for entry in entries:
        if entry.name == ".publish.lock":
            continue
        key = str(entry.relative_to(path.parent))
        if entry.is_symlink():
            out[key] = "-> " + os.readlink(entry)
        elif entry.is_file():
            out[key] = hashlib.sha256(entry.read_bytes()).hexdigest()
        else:
            out[key] = "folder"
    return out


HOLD_BUILD = (
    "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
    "print('ready', flush=True); time.sleep(120)"
)
HOLD_PUBLISH_LOCK = (
    "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
    "fcntl.flock(fd, fcntl.LOCK_EX); os.ftruncate(fd, 0); "
    "os.pwrite(fd, str(os.getpid()).encode(), 0); "
    "print('ready', flush=True); time.sleep(120)"
)


def mount_tmpfs(path: Path, size: str) -> bool:
    """A tmpfs at ``path`` where this test may mount one (root in a container), else False."""
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True
    )
    return done.returncode == 0


class CaseFolder:
    """A case's folder: a small build file, a serving folder with one published version,
    and whatever the case's setup adds; cleaned up (children ended, mounts undone) after."""

    def __init__(self, root: Path, monkeypatch):
        from concord_io.serving.publish import publish

        self.work = root / "work"
        self.build = tiny_build(self.work / "build" / "concord.duckdb")
        self.disk = self.work / "disk"
        self.serving = self.disk / "serving"
        self.monkeypatch = monkeypatch
        self.children: list[subprocess.Popen] = []
        self.mounted = False
        self.holder = ""
        self._publish = publish

    def publish_first(self) -> None:
        self._publish(self.build, self.serving, skip_quality_gate=True)

    def hold(self, code: str, target: Path) -> None:
        child = subprocess.Popen(
            [sys.executable, "-c", code, str(target)], stdout=subprocess.PIPE, text=True
        )
        self.children.append(child)
        assert child.stdout.readline().strip() == "ready"
        self.holder = str(child.pid)

    def mock_errno(self, number: int) -> None:
        """Every file or folder made or opened for writing on the case's disk fails."""
        real_open, real_mkdir = os.open, os.mkdir
        disk = str(self.disk)

        def failing_open(path, flags, *args, **kwargs):
            if str(path).startswith(disk) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
                raise OSError(number, os.strerror(number), str(path))
            return real_open(path, flags, *args, **kwargs)

        def failing_mkdir(path, *args, **kwargs):
            if str(path).startswith(disk):
                raise OSError(number, os.strerror(number), str(path))
            return real_mkdir(path, *args, **kwargs)

        self.monkeypatch.setattr(os, "open", failing_open)
        self.monkeypatch.setattr(os, "mkdir", failing_mkdir)

    def setup(self, step: str) -> None:
        from concord_io.quality import build_identity, write_quality_record

        if step == "quality_passed":
            write_quality_record(self.build, build_identity(self.build), 0)
        elif step == "build_changed":
            with duckdb.connect(str(self.build)) as con:
                con.execute("create table marts.extra as select 1 as x")
        elif step == "stray_wal":
            (self.serving / "concord.duckdb.wal").write_bytes(b"x")
        elif step == "corrupt_record":
            (self.serving / "published.json").write_text("{", encoding="utf-8")
        elif step == "parquet_link_is_folder":
            (self.serving / "parquet").unlink()
            (self.serving / "parquet").mkdir()
        elif step == "corrupt_manifest":
            (self.work / "manifest.json").write_text("{not json", encoding="utf-8")
        elif step == "publish_running":
            self.hold(HOLD_PUBLISH_LOCK, self.serving / ".publish.lock")
        elif step == "build_held":
            self.hold(HOLD_BUILD, self.build)
        elif step == "read_only_disk":
            if self.mounted:
                subprocess.run(["mount", "-o", "remount,ro", str(self.disk)], check=True)
            else:
                self.mock_errno(errno.EROFS)
        elif step == "full_disk":
            if self.mounted:  # fill what is left of the tiny disk
                with open(self.disk / "filler", "wb") as f:
                    try:
                        while True:
                            f.write(b"\0" * 65536)
                    except OSError as error:
                        assert error.errno == errno.ENOSPC
            else:
                self.mock_errno(errno.ENOSPC)
        else:
            raise ValueError(f"unknown setup {step!r}")

    def close(self) -> None:
        for child in self.children:
            child.kill()
            child.wait(timeout=30)
        if self.mounted:
            subprocess.run(["umount", str(self.disk)], check=False)

    def fill(self, value):
        if isinstance(value, list):
            return [self.fill(v) for v in value]
        if isinstance(value, dict):
            return {k: self.fill(v) for k, v in value.items()}
        for key in ("work", "build", "serving", "holder"):
            value = value.replace("{" + key + "}", str(getattr(self, key)))
        return value


#: Each runner's module: ``python -m <module> <args>``.
RUNNERS = {
    "publish": "concord_io.serving.publish",
    "quality": "concord_io.quality",
    "summary": "concord_io.cli.summary",
}


def run_entry_point(runner: str, args: list[str], capsys) -> tuple[int, str]:
    """``python -m <its module> <args>`` in process: its main through run_main."""
    import importlib

    from concord_io.errors import run_main

    module = importlib.import_module(RUNNERS[runner])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        run_main(module.main, args)
    out = capsys.readouterr()
    return exited.value.code, out.out + out.err


# the settings and dbt cases start dbt: `make test-fast` leaves them to `make test`
HARDENING_PARAMS = [
    pytest.param(
        case,
        id=case["id"],
        marks=[pytest.mark.warehouse] if case["runner"] in {"settings", "dbt"} else [],
    )
    for case in HARDENING
]


@pytest.mark.parametrize("case", HARDENING_PARAMS)
def test_hardening_case(case, request, tmp_path, monkeypatch, capsys):
    expect = case["expect"]
    if case["runner"] == "settings":
        success, output = request.getfixturevalue("settings_check")(case["vars"])
        assert success == (expect["outcome"] == "loaded"), output[-3000:]
        for text in expect.get("messages", []):
            assert text in output, f"{case['id']}: {text!r} not in:\n{output[-3000:]}"
        return

    folder = CaseFolder(tmp_path, monkeypatch)
    try:
        disk_steps = {"read_only_disk", "full_disk"} & set(case.get("setup", []))
        if disk_steps:
            folder.mounted = mount_tmpfs(folder.disk, "2m" if "full_disk" in disk_steps else "64m")
        folder.publish_first()
        for step in case.get("setup", []):
            folder.setup(step)
        before = {"serving": tree_state(folder.serving), "build": tree_state(folder.build)}
        if case["runner"] == "dbt":
            database = folder.work / "dbt" / "concord.duckdb"
            command = list(case["command"])
            if "vars" in case:
                command += ["--vars", json.dumps(case["vars"])]
            result = run_dbt(
                command,
                PROJECT_ROOT,
                database,
                check=False,
                extra_env=folder.fill(case.get("env", {})),
            )
            code, output = result.returncode, result.stdout
            if expect.get("no_model_ran"):
                ran = getattr(result.result, "results", None) or []
                assert not [r for r in ran if r.node.unique_id.startswith("model.")], ran
        else:
            code, output = run_entry_point(case["runner"], folder.fill(case["args"]), capsys)
        for text in folder.fill(expect.get("messages", [])):
            assert text in output, f"{case['id']}: {text!r} not in:\n{output[-3000:]}"
        if expect["outcome"] == "error":
            assert code != 0, output
            # one line and a hint, never a traceback
            assert "Traceback" not in output and "unexpected error" not in output, output
            after = {"serving": tree_state(folder.serving), "build": tree_state(folder.build)}
            assert after == before, f"{case['id']}: the serving folder or build file changed"
            for path in folder.fill(expect.get("absent", [])):
                assert not Path(path).exists(), path
        else:
            assert code == 0, output
            from concord_io.connect import connect_serving

            with connect_serving(folder.serving / "concord.duckdb") as con:
                (quality,) = con.execute("select quality from meta.publication").fetchone()
            assert quality == expect["published_quality"]
        assert [p.name for p in tmp_path.iterdir()] == ["work"]  # nothing written beside it
    finally:
        folder.close()


def test_hardening_cases_are_well_formed():
    ids = [c["id"] for c in HARDENING]
    assert len(ids) == len(set(ids)) and len(ids) >= 30
    for case in HARDENING:
        assert case["input"] and case["runner"] in {"settings", "dbt", *RUNNERS}
        assert case["expect"]["outcome"] in {"error", "loaded"}, case["id"]
        if case["expect"]["outcome"] == "error":
            assert case["expect"]["messages"], case["id"]
