"""What every reader of an input file shares: the file's bytes and content hash, the row
numbers of its records, JSON lines, and the one-line refusal of the first bad record."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from concord_io.errors import ConcordError, printable
from concord_io.landing.strict_csv import text_of


@dataclass(frozen=True)
class SourceFile:
    """An input file, read once: ``name`` is how messages and ``source_file`` name it (its
    path relative to its registry's folder)."""

    path: Path
    name: str
    data: bytes

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def suffix(self) -> str:
        return self.path.suffix.lower()


def load(directory: Path, name: str) -> SourceFile:
    path = directory / name
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ConcordError(
            f"{printable(name)}: cannot be read ({error.strerror})",
            hint="check the file and its permissions",
        ) from None
    return SourceFile(path, name, data)


def with_rows(table: pa.Table) -> pa.Table:
    """``table`` with ``source_row``: 1 = its first record."""
    return table.append_column(
        "source_row", pa.array(np.arange(1, table.num_rows + 1, dtype=np.int64))
    )


def json_lines(source: SourceFile) -> pa.Table:
    """One row per line that is not blank: ``source_row`` (the line number) and ``line``.
    Lines end at LF (a CR before it is dropped): JSON strings may hold other separators."""
    text = text_of(source.data, source.name)
    lines = pc.utf8_rtrim(pa.array(text.split("\n")), characters="\r")
    table = with_rows(pa.table({"line": lines}))
    result = table.filter(pc.not_equal(pc.utf8_trim(lines, characters=" \t"), ""))
    if result.num_rows == 0:
        raise ConcordError(
            f"{source.name}: the file has no records (only blank lines)",
            hint="Add its rows or remove the file and its registry line.",
        )
    return result


def first_row(con: duckdb.DuckDBPyConnection, sql: str) -> tuple | None:
    """The first row of ``sql``, or None; every row is fetched (DuckDB keeps a result open
    until then, and the connection is busy)."""
    rows = con.execute(sql).fetchall()
    return rows[0] if rows else None


@dataclass(frozen=True)
class Check:
    """A record-level rule, in SQL: a condition true for a bad record, the column at fault
    and the problem (text expressions: they may show the record's values), and a hint."""

    condition: str
    column: str
    problem: str
    hint: str


def refuse_first(
    con: duckdb.DuckDBPyConnection,
    relation: str,
    checks: Sequence[Check],
    file: str,
    unit: str = "row",
) -> None:
    """Raise for the first record of ``relation`` (by ``source_row``) that breaks a check, in
    the order of ``checks``: one line naming the file, row, column and problem."""
    for check in checks:
        found = first_row(
            con,
            f"select source_row, {check.column}, {check.problem} from {relation} "
            f"where {check.condition} order by source_row limit 1",
        )
        if found:
            row, column, problem = found
            where = f"{printable(file)}: {unit} {row}, column {printable(column)}"
            raise ConcordError(
                f"{where}: {printable(problem)}",
                hint=check.hint,
            )


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def gold_check(options: Sequence[str], column: str, hint: str) -> Check:
    """A gold (column ``gold`` of the relation checked) that is not one of the study's
    option keys: a record's gold is its item's own key, exactly."""
    return Check(
        f"gold not in ({', '.join(_literal(option) for option in options)})",
        _literal(column),
        "'gold ''' || gold || " + _literal(f"' is not one of the options {', '.join(options)}"),
        hint,
    )
