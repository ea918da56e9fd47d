"""Exports from the published serving file: every mart as CSV, xlsx or Parquet, and the
probe's six CSV files of the reference.

Exports read the serving file (``<serving>/concord.duckdb``, see :mod:`concord_io.serving.publish`)
through the locked-down reader connection, never the build database, so they run beside a
build and beside BI readers, and export exactly what was published.

Each mart goes to one file with a stable name, ``<out>/<mart>.<format>``, written to a
temporary name and renamed, with its column descriptions (from the comments that publish
wrote from dbt's manifest): a second sheet ``columns`` in xlsx, a sidecar
``<mart>.columns.csv`` beside CSV and Parquet files (and in the Parquet schema's field
metadata).

An xlsx workbook opens on its data: the first sheet, named after the mart, with the header
row frozen, an autofilter over the rows, bounded column widths, and dates and timestamps as
Excel dates (timestamps with a time zone in UTC, said in their format). CSV writes booleans
as ``true``/``false``.

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
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, date, datetime, time
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from concord_io import paths
from concord_io.connect import connect_serving
from concord_io.errors import ConcordError, disk_error
from concord_io.serving.publish import CURRENT_DB, SCHEMA

FORMATS = ("csv", "xlsx", "parquet")
#: Characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
SIDECAR_SUFFIX = ".columns.csv"
#: Characters an xlsx cell holds: a longer text is refused, never cut.
XLSX_MAX_CHARS = 32_767
#: Data rows an xlsx sheet holds (1,048,576 rows less the header): a larger mart is refused,
#: never truncated (the xlsx writer would silently drop the rows past the limit).
XLSX_MAX_ROWS = 1_048_575
#: Excel's longest sheet name, in UTF-16 code units, and the characters it refuses in one.
SHEET_NAME_MAX = 31
_SHEET_NAME_FORBIDDEN = re.compile(r"[\[\]:*?/\\\x00-\x1f]")
#: The workbook's second sheet, with the column descriptions.
COLUMNS_SHEET = "columns"
#: Column widths of the data sheet, in characters: wide enough for a header with its filter
#: button, never so wide that one long text hides the other columns.
COLUMN_WIDTH_MIN, COLUMN_WIDTH_MAX = 8, 60
#: Excel's dates run from 1900-01-01 to 9999-12-31 (an earlier one would show as ####).
EXCEL_FIRST_DATE = date(1900, 1, 1)
DATE_FORMATS = {
    "date": "yyyy-mm-dd",
    "datetime": "yyyy-mm-dd hh:mm:ss",
    "datetime_utc": 'yyyy-mm-dd hh:mm:ss "UTC"',
    "time": "hh:mm:ss",
}

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


class _CsvBool(int):
    """A boolean as DuckDB's own CSV writer (``COPY ... TO``) spells it, ``true``/``false``,
    not Python's ``True``/``False``. Being a number to the csv module it is written bare
    like numbers are (QUOTE_NONNUMERIC would quote a string "true" as text)."""

    def __str__(self) -> str:
        return "true" if self else "false"

    __repr__ = __str__


# Read back, true/false are booleans to pandas, DuckDB and pyarrow (as True/False are) and
# to Excel, LibreOffice and Google Sheets (TRUE/FALSE, in an English locale): lowercase is
# chosen as what DuckDB's COPY, Spark and JSON write, not Python's spelling
_CSV_BOOLS = {True: _CsvBool(1), False: _CsvBool(0)}


def _csv_cell(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, bool):
        return _CSV_BOOLS[value]
    return neutralise(_text(value))


def _write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    # QUOTE_NONNUMERIC quotes every text cell and leaves numbers bare (OWASP's advice)
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
        writer.writerow([neutralise(h) for h in header])
        for row in rows:
            writer.writerow([_csv_cell(v) for v in row])


def _temp(target: Path) -> Path:
    return target.with_name(f".{target.name}.{os.getpid()}.partial")


def sheet_name(mart: str) -> str:
    """The name of a mart's data sheet: the mart's name as Excel takes it (at most 31 UTF-16
    code units, none of ``[]:*?/\\`` or a control character, no apostrophe at either end)."""
    name, units = "", 0
    for char in _SHEET_NAME_FORBIDDEN.sub("_", mart):
        units += len(char.encode("utf-16-le")) // 2
        if units > SHEET_NAME_MAX:
            break
        name += char
    name = name.strip(" '")  # and no space left at the end of a name cut short
    # Excel reserves "History"; the other sheet is "columns" (names are caseless in Excel)
    if not name.strip() or name.casefold() in ("history", COLUMNS_SHEET):
        return "data"
    return name


def _width(value: object) -> int:
    return max((len(line) for line in str(value).splitlines()), default=0)


def _excel_date(value: object) -> tuple[date | time, str] | None:
    """``value`` as Excel takes a date, timestamp or time of day, with its format's key in
    DATE_FORMATS; None for any other value, and for a date before Excel's first (written as
    ISO text instead of a negative serial that Excel shows as ####)."""
    if isinstance(value, datetime):
        kind = "datetime"
        if value.tzinfo is not None:  # Excel has no time zones: UTC, said in the format
            value, kind = value.astimezone(UTC).replace(tzinfo=None), "datetime_utc"
        return (value, kind) if value.date() >= EXCEL_FIRST_DATE else None
    if isinstance(value, date):
        return (value, "date") if value >= EXCEL_FIRST_DATE else None
    if isinstance(value, time) and value.tzinfo is None:
        return value, "time"
    return None


def _bounded(width: int) -> int:
    return min(max(width + 1, COLUMN_WIDTH_MIN), COLUMN_WIDTH_MAX)


def _write_xlsx(
    path: Path,
    mart: str,
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
        formats = {kind: book.add_format({"num_format": f}) for kind, f in DATE_FORMATS.items()}
        # the first sheet added is the first tab and the one the workbook opens on
        data = book.add_worksheet(sheet_name(mart))
        # a header gets two characters more: its autofilter button covers its end
        widths = [_width(name) + 2 for name in header]
        for c, name in enumerate(header):
            data.write_string(0, c, name)
        last_row = 0
        for r, record in enumerate(rows, start=1):
            last_row = r
            for c, raw in enumerate(record):
                value = _text(raw)
                if value is not None:
                    where = f"--mart {mart}: row {r}, column {header[c]}"
                    shown = _write_cell(data, (r, c), value, formats, where)
                    widths[c] = max(widths[c], _width(shown))
        if header:
            data.freeze_panes(1, 0)
            data.autofilter(0, 0, last_row, len(header) - 1)
        for c, width in enumerate(widths):
            data.set_column(c, c, _bounded(width))

        _write_columns_sheet(book, description, columns)


def _write_columns_sheet(book, description: str, columns: list[tuple[str, str, str]]) -> None:
    """The sheet that describes the table and each of its columns (name, type, meaning)."""
    about = book.add_worksheet(COLUMNS_SHEET)
    lines = [("table", description), (), ("column", "type", "description"), *columns]
    widths = [0, 0, 0]
    for r, line in enumerate(lines):
        for c, text in enumerate(line):
            about.write_string(r, c, text)
            if r > 0:  # the table's description runs on over the empty cells beside it
                widths[c] = max(widths[c], _width(text))
    for c, width in enumerate(widths):
        about.set_column(c, c, _bounded(width))


def _write_cell(sheet, cell: tuple[int, int], value: object, formats: dict, where: str) -> object:
    """``value`` written at ``cell`` of ``sheet`` as what it is (a boolean, a number, a date,
    text); what a reader sees of it, for the column's width. A text longer than a cell holds
    is refused (``where`` names its row and column)."""
    r, c = cell
    if isinstance(value, bool):
        sheet.write_boolean(r, c, value)
        return value
    if isinstance(value, int | float | Decimal):
        number = float(value) if isinstance(value, Decimal) else value  # a DECIMAL is a number
        if number == number and abs(number) != float("inf"):
            sheet.write_number(r, c, number)
            return f"{number:.10g}"  # Excel's General format shows about ten digits
        sheet.write_string(r, c, str(number))  # NaN and infinities have no xlsx number
        return number
    if (excel_date := _excel_date(value)) is not None:
        moment, kind = excel_date
        sheet.write_datetime(r, c, moment, formats[kind])
        return DATE_FORMATS[kind].replace('"', "")
    text = str(value)
    if len(text) > XLSX_MAX_CHARS:
        # xlsxwriter would cut it to the cell's limit and say nothing
        raise ConcordError(
            f"{where} holds a text of {len(text)} characters, more than an xlsx cell holds "
            f"({XLSX_MAX_CHARS}); nothing was written",
            hint="export it with --format csv or --format parquet",
        )
    sheet.write_string(r, c, text)
    return value


def _write_parquet(path: Path, table: pa.Table, columns: list[tuple[str, str, str]]) -> None:
    described = {name: text for name, _, text in columns}
    fields = [
        f.with_metadata({"description": described[f.name]}) if described.get(f.name) else f
        for f in table.schema
    ]
    pq.write_table(table.cast(pa.schema(fields)), path, compression="zstd")


@contextmanager
def _writing_into(out: Path) -> Iterator[None]:
    """An export's writing into ``out``: an error of the file system (a folder under
    ``/proc``, a read-only or full disk) is one line naming the folder, not a traceback; each
    file is written under a temporary name first, so none is left half-written."""
    try:
        yield
    except OSError as error:
        problem = disk_error(error, out, "choose a writable folder (--out)")
        raise problem or ConcordError(
            f"--out {out}: cannot be written ({error.strerror or error})",
            hint="choose a folder on a writable disk (--out)",
        ) from error


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
        with _writing_into(out):
            written += _write_marts(con, fmt, chosen, out)
    return written


def _write_marts(
    con: duckdb.DuckDBPyConnection, fmt: str, chosen: list[str], out: Path
) -> list[Path]:
    """Each of the ``chosen`` marts written into ``out`` as ``fmt``, with its sidecar."""
    written: list[Path] = []
    out.mkdir(parents=True, exist_ok=True)
    for mart in dict.fromkeys(chosen):
        target = paths.inside(out, f"{mart}.{fmt}", what="export file")
        if target.name != f"{mart}.{fmt}":  # "a/b": a subfolder, not a file name
            raise ConcordError(
                f"--mart {mart!r}: a name with a path separator cannot name an export file",
                hint="export the other marts with --mart",
            )
        columns = column_descriptions(con, mart)
        description = table_description(con, mart)
        relation = f'{SCHEMA}."{mart}"'
        temp = _temp(target)
        try:
            if fmt == "parquet":
                _write_parquet(temp, con.sql(f"select * from {relation}").to_arrow_table(), columns)
            else:
                # the connection is its own cursor: no other query until the rows are read
                cursor = con.execute(f"select * from {relation}")
                header = [d[0] for d in cursor.description]
                flat = _rows(cursor)
                if fmt == "csv":
                    _write_csv(temp, header, flat)
                else:
                    _write_xlsx(temp, mart, description, columns, header, flat)
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
        written = []
        with _writing_into(out):
            out.mkdir(parents=True, exist_ok=True)
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
