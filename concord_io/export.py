"""Exports from the published serving file: every mart as CSV, xlsx or Parquet, and the
probe's six CSV files of the reference.

Exports read the serving file (``<serving>/concord.duckdb``, see :mod:`concord_io.publish`)
through the locked-down reader connection, never the build database, so they run beside a
build and beside BI readers, and export exactly what was published.

Each mart goes to one file with a stable name, ``<out>/<mart>.<format>``, written to a
temporary name and renamed, with its column descriptions (from the comments that publish
wrote from dbt's manifest): a first sheet ``columns`` in xlsx, a sidecar
``<mart>.columns.csv`` beside CSV and Parquet files (and in the Parquet schema's field
metadata).

Spreadsheet formula injection: a text cell that starts with ``=``, ``+``, ``-``, ``@``, a
tab or a carriage return is a formula to Excel, LibreOffice and Google Sheets when a CSV is
opened. As the OWASP guidance on CSV injection recommends, every such text cell of a CSV
export is prefixed with a single quote (``'=1+1``) and every text cell is quoted; numbers
(a negative number is a number, not text) are written as numbers. In xlsx every text cell is
written as a string cell, never as a formula, so it needs no prefix.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from concord_io import paths
from concord_io.connect import connect_serving
from concord_io.errors import ConcordError
from concord_io.publish import CURRENT_DB, SCHEMA

FORMATS = ("csv", "xlsx", "parquet")
#: Characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
SIDECAR_SUFFIX = ".columns.csv"
#: Data rows an xlsx sheet holds (1,048,576 rows less the header): a larger mart is refused,
#: never truncated (the xlsx writer would silently drop the rows past the limit).
XLSX_MAX_ROWS = 1_048_575

# The probe's six files of the reference: file name -> query over the published probe marts of
# one run ($run_id), in the reference's naming (group, name). One mapping, so a change of the
# probe marts changes one place.
PROBE_EXPORTS = {
    "stimuli_ambiguous_10_two_names.csv": """
        select msg_id, group_name as "group", sender_name as name, stimulus as text
        from marts.probe_indices_per_name where run_id = $run_id
        order by msg_id, stimulus_id""",
    "results_indices_reliability_per_name.csv": """
        select msg_id, group_name as "group", sender_name as name, index_reliable_like,
               index_unreliable_like, index_rel_minus_unrel, top_choice, p_top
        from marts.probe_indices_per_name where run_id = $run_id
        order by msg_id, stimulus_id""",
    "results_indices_reliability_group_avg.csv": """
        select msg_id, group_name as "group", index_reliable_like, index_unreliable_like,
               index_rel_minus_unrel
        from marts.probe_indices_group_avg where run_id = $run_id
        order by msg_id, group_name""",
    "results_summary_reliability_per_name.csv": """
        select group_name as "group", * exclude (run_id, group_name)
        from marts.probe_summary_per_name where run_id = $run_id
        order by group_name""",
    "results_summary_reliability_group_avg.csv": """
        select group_name as "group", * exclude (run_id, group_name)
        from marts.probe_summary_group_avg where run_id = $run_id
        order by group_name""",
    "results_paired_summary_reliability_group_avg.csv": """
        select group_name as "group",
               * exclude (run_id, group_name, model, design_hash, p_value_mc_error)
        from marts.probe_paired_summary where run_id = $run_id
        order by group_name""",
}
#: The mart whose run ids say which probe runs are published.
PROBE_RUNS_MART = "probe_indices_per_name"


def neutralise(value: object) -> object:
    """``value`` safe to open in a spreadsheet: text starting with a formula character gets
    a leading single quote (OWASP); anything else (numbers included) is returned as is."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def default_out_dir() -> Path:
    return paths.warehouse_dir() / "exports"


def serving_file(serving: Path | str | None = None) -> Path:
    """The serving file: ``serving`` (a file, or a serving folder), else the default one."""
    path = Path(serving) if serving is not None else paths.serving_dir()
    if path.is_dir() or not path.suffix:  # a serving folder, published to or not
        path = path / CURRENT_DB
    if not path.exists():
        raise ConcordError(
            f"{path}: nothing has been published yet", hint="run `concord build` first"
        )
    return path


def _connect(serving: Path | str | None) -> duckdb.DuckDBPyConnection:
    return connect_serving(serving_file(serving))


def published_marts(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [
        name
        for (name,) in con.execute(
            "select table_name from duckdb_tables() where schema_name = ? order by table_name",
            [SCHEMA],
        ).fetchall()
    ]


def column_descriptions(con: duckdb.DuckDBPyConnection, mart: str) -> list[tuple[str, str, str]]:
    """(column, type, description) of a published mart, from the serving file's comments."""
    return [
        (name, kind, comment or "")
        for name, kind, comment in con.execute(
            "select column_name, data_type, comment from duckdb_columns() "
            "where schema_name = ? and table_name = ? order by column_index",
            [SCHEMA, mart],
        ).fetchall()
    ]


def table_description(con: duckdb.DuckDBPyConnection, mart: str) -> str:
    # fetchall, not fetchone: DuckDB keeps an unfinished result busy until it is read out
    rows = con.execute(
        "select comment from duckdb_tables() where schema_name = ? and table_name = ?",
        [SCHEMA, mart],
    ).fetchall()
    return (rows[0][0] or "") if rows else ""


def _text(value: object) -> object:
    """A cell value as CSV or xlsx can hold it: nested values (lists, structs) as JSON."""
    if isinstance(value, list | dict | tuple):
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


def _rows(cursor: duckdb.DuckDBPyConnection, size: int = 10_000):
    """The rows of ``cursor`` in chunks, so an export holds one chunk in memory, not a mart."""
    while chunk := cursor.fetchmany(size):
        yield from chunk


def _write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    # QUOTE_NONNUMERIC quotes every text cell and leaves numbers bare (OWASP's advice)
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
        writer.writerow([neutralise(h) for h in header])
        for row in rows:
            writer.writerow(["" if v is None else neutralise(_text(v)) for v in row])


def _temp(target: Path) -> Path:
    return target.with_name(f".{target.name}.{os.getpid()}.partial")


def _write_xlsx(
    path: Path,
    description: str,
    columns: list[tuple[str, str, str]],
    header: Sequence[str],
    rows: Iterable[Sequence[object]],
) -> None:
    import xlsxwriter

    # strings stay strings: xlsxwriter would otherwise turn "=..." into a formula and
    # "123" into a number
    options = {"strings_to_formulas": False, "strings_to_numbers": False, "strings_to_urls": False}
    with xlsxwriter.Workbook(str(path), options) as book:
        about = book.add_worksheet("columns")
        about.write_string(0, 0, "table")
        about.write_string(0, 1, description)
        for c, title in enumerate(("column", "type", "description")):
            about.write_string(2, c, title)
        for r, row in enumerate(columns, start=3):
            for c, text in enumerate(row):
                about.write_string(r, c, text)
        data = book.add_worksheet("data")
        for c, name in enumerate(header):
            data.write_string(0, c, name)
        for r, record in enumerate(rows, start=1):
            for c, raw in enumerate(record):
                value = _text(raw)
                if value is None:
                    continue
                if isinstance(value, bool):
                    data.write_boolean(r, c, value)
                elif isinstance(value, int | float):
                    if value == value and abs(value) != float("inf"):
                        data.write_number(r, c, value)
                    else:  # NaN and infinities have no xlsx number
                        data.write_string(r, c, str(value))
                else:
                    data.write_string(r, c, str(value))


def _write_parquet(path: Path, table: pa.Table, columns: list[tuple[str, str, str]]) -> None:
    described = {name: text for name, _, text in columns}
    fields = [
        f.with_metadata({"description": described[f.name]}) if described.get(f.name) else f
        for f in table.schema
    ]
    pq.write_table(table.cast(pa.schema(fields)), path, compression="zstd")


def export_marts(
    fmt: str = "csv",
    marts: Sequence[str] | None = None,
    out_dir: Path | str | None = None,
    serving: Path | str | None = None,
) -> list[Path]:
    """Write each mart (default: all published) as ``<out_dir>/<mart>.<fmt>``; returns paths."""
    if fmt not in FORMATS:
        raise ConcordError(
            f"--format {fmt!r} is not an export format", hint=f"use one of {', '.join(FORMATS)}"
        )
    out = paths.output_folder(out_dir if out_dir is not None else default_out_dir())
    written: list[Path] = []
    with _connect(serving) as con:
        available = published_marts(con)
        chosen = list(marts) if marts else available
        unknown = [m for m in chosen if m not in available]
        if unknown:
            raise ConcordError(
                f"--mart {unknown[0]!r} is not a published mart",
                hint=f"published marts: {', '.join(available)}",
            )
        if fmt == "xlsx":
            for mart in chosen:
                (n_rows,) = con.execute(f'select count(*) from {SCHEMA}."{mart}"').fetchall()[0]
                if n_rows > XLSX_MAX_ROWS:
                    raise ConcordError(
                        f"--mart {mart}: {n_rows} rows, more than an xlsx sheet holds "
                        f"({XLSX_MAX_ROWS})",
                        hint="export it with --format csv or --format parquet",
                    )
        out.mkdir(parents=True, exist_ok=True)
        for mart in dict.fromkeys(chosen):
            target = paths.inside(out, f"{mart}.{fmt}", what="export file")
            columns = column_descriptions(con, mart)
            description = table_description(con, mart)
            relation = f'{SCHEMA}."{mart}"'
            temp = _temp(target)
            try:
                if fmt == "parquet":
                    _write_parquet(
                        temp, con.sql(f"select * from {relation}").to_arrow_table(), columns
                    )
                else:
                    # the connection is its own cursor: no other query until the rows are read
                    cursor = con.execute(f"select * from {relation}")
                    header = [d[0] for d in cursor.description]
                    flat = _rows(cursor)
                    if fmt == "csv":
                        _write_csv(temp, header, flat)
                    else:
                        _write_xlsx(temp, description, columns, header, flat)
                os.replace(temp, target)
            finally:
                temp.unlink(missing_ok=True)
            written.append(target)
            if fmt != "xlsx":
                sidecar = paths.inside(out, f"{mart}{SIDECAR_SUFFIX}", what="export file")
                temp = _temp(sidecar)
                try:
                    _write_csv(temp, ("column", "type", "description"), columns)
                    os.replace(temp, sidecar)
                finally:
                    temp.unlink(missing_ok=True)
                written.append(sidecar)
    return written


def probe_runs(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The probe runs in the published marts."""
    if PROBE_RUNS_MART not in published_marts(con):
        return []
    return [
        r
        for (r,) in con.execute(
            f"select distinct run_id from {SCHEMA}.{PROBE_RUNS_MART} order by run_id"
        ).fetchall()
    ]


def export_probe(
    out_dir: Path | str | None = None,
    run_id: str | None = None,
    serving: Path | str | None = None,
) -> list[Path]:
    """Write the six CSV files of probe run ``run_id`` (default: the only published run)
    into ``out_dir`` (default: ``exports/probe/<run id>`` beside the build database)."""
    if out_dir is not None:
        out_dir = paths.output_folder(out_dir)
    with _connect(serving) as con:
        runs = probe_runs(con)
        if not runs:
            raise ConcordError(
                "no probe run is published",
                hint="run the probe (`concord probe demo`), then `concord build`",
            )
        if run_id is None:
            if len(runs) > 1:
                raise ConcordError(
                    f"{len(runs)} probe runs are published: name one with --run",
                    hint=f"runs: {', '.join(runs)}",
                )
            run_id = runs[0]
        elif run_id not in runs:
            raise ConcordError(
                f"--run {run_id!r} is not a published probe run",
                hint=f"published runs: {', '.join(runs)}",
            )
        if out_dir is None:
            out = paths.inside(default_out_dir() / "probe", run_id, what="run id")
        else:
            out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name, query in PROBE_EXPORTS.items():
            target = paths.inside(out, name, what="export file")
            cursor = con.execute(query, {"run_id": run_id})
            header = [d[0] for d in cursor.description]
            temp = _temp(target)
            try:
                _write_csv(temp, header, cursor.fetchall())
                os.replace(temp, target)
            finally:
                temp.unlink(missing_ok=True)
            written.append(target)
    return written
