"""The bad-input corpus (tests/bad_input/cases.yml), each case through the real dbt command
on a fresh copy of the project, plus the probe's cases (landing and seeds), which go
through the probe's own writer and the export rather than through dbt alone.

Every case ends in exactly one of: an error naming the file or seed, the row and the
column; quarantine with the standard columns and reconciled counts; or a correct load.
"""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pytest
import yaml
from probe_fakes import fake_run_tables

from concord_io.project import CAUTIOUS, PROJECT_ROOT, copy_project, run_dbt

CORPUS = PROJECT_ROOT / "tests" / "bad_input" / "cases.yml"
_CORPUS = yaml.safe_load(CORPUS.read_text(encoding="utf-8"))
CASES, BATCHES = _CORPUS["cases"], _CORPUS["batches"]


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


def mutate(path: Path, op: str, **args) -> None:
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


@dataclass
class Outcome:
    result: subprocess.CompletedProcess
    database: Path
    node_status: dict[str, str]  # seed or model name -> status in run_results.json


def run_cases(cases: list[dict], command: list[str], destination: Path) -> Outcome:
    """Mutate one fresh project copy with every case's mutation and run ``command`` once."""
    project = copy_project(destination)
    database = project / "concord.duckdb"
    for case in cases:
        if case.get("seed_first"):
            run_dbt(["seed", "--select", Path(case["file"]).stem], project, database)
    for case in cases:
        steps = case["mutation"] if isinstance(case["mutation"], list) else [case["mutation"]]
        for step in steps:
            step = dict(step)
            mutate(project / case["file"], step.pop("op"), **step)
    if command[0] == "build":
        command = [*command, *CAUTIOUS]
    result = run_dbt(command, project, database, check=False)
    results_file = project / "target" / "run_results.json"
    node_status = {}
    if results_file.is_file():
        for node in json.loads(results_file.read_text())["results"]:
            node_status[node["unique_id"].split(".")[-1]] = node["status"]
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

    if "seed" in expect:  # a seed batch fails as a whole when any of its seeds is refused
        assert outcome.node_status.get(expect["seed"]) == "success", outcome.node_status
    else:
        assert result.returncode == 0, f"{case['id']}: dbt failed:\n{output}"
    with duckdb.connect(str(outcome.database), read_only=True) as con:
        for check in expect.get("checks", []):
            rows = [list(r) for r in con.execute(check["sql"]).fetchall()]
            assert rows == check["rows"], (case["id"], check["sql"], rows)
        if expect["outcome"] == "quarantined":
            check_quarantine(con, expect["quarantine"])
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
            (c["file"], step.get("row"), step.get("column"))
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
        ("scores", "prob_over_candidates", math.inf),
        ("scores", "token_logprobs", -math.inf),
        ("stimulus_indices", "p_top", math.nan),
        ("stimulus_indices", "index_rel_minus_unrel", math.inf),
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
def test_probe_scorer_refuses_non_finite_token_logprobs():
    from probe.scoring import NonFiniteScoreError, summarise

    with pytest.raises(NonFiniteScoreError):
        summarise([np.array([-1.0, math.nan]), np.array([-2.0])])
    with pytest.raises(NonFiniteScoreError):
        summarise([np.array([-1.0]), np.array([math.inf])])


NASTY_NAME = 'O\'Brien; "Bobby"\nمحمد‎'
NASTY_MESSAGE = "Can we meet at 10; or \"later\"?\nRe: پیام, 'quoted' — ok"


def test_probe_names_and_messages_with_quotes_semicolons_newlines_and_rtl(project_copy, tmp_path):
    """Quotes, semicolons, newlines and right-to-left text in the probe seeds survive the
    seed load, the landing, the marts and the CSV export byte for byte."""
    from probe.export import export_run
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
            "probe_names",
            "+path:models/marts/probe",
            *CAUTIOUS,
            "--vars",
            "{probe_permutations: 200, bootstrap_resamples: 200}",
        ],
        project_copy,
        database,
        extra_env={"CONCORD_LANDING_DIR": str(landing)},
    )
    with duckdb.connect(str(database), read_only=True) as con:
        (seeded,) = con.execute(
            "select sender_name from raw.probe_names where sender_name like 'O''Brien%'"
        ).fetchone()
        in_marts = con.execute(
            "select distinct sender_name, stimulus from marts.probe_indices_per_name "
            "where msg_id = 1 and sender_name like 'O''Brien%'"
        ).fetchall()
    assert seeded == NASTY_NAME
    assert in_marts == [(NASTY_NAME, f"Hi, I'm {NASTY_NAME}. {NASTY_MESSAGE}")]
    files = export_run(tmp_path / "export", "nasty-run", database)
    stimuli = next(f for f in files if f.name == "stimuli_ambiguous_10_two_names.csv")
    with stimuli.open(encoding="utf-8", newline="") as f:
        exported = list(csv.DictReader(f))
    assert len(exported) == len(design.stimuli)
    nasty = [r for r in exported if r["name"] == NASTY_NAME]
    assert [r["text"] for r in nasty if r["msg_id"] == "1"] == [
        f"Hi, I'm {NASTY_NAME}. {NASTY_MESSAGE}"
    ]
