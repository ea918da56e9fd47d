"""Writing a landing folder (a run, or a task's items) whole or not at all.

A folder is written under a hidden name (``.tmp-...``), each file fsynced, then renamed into
place; a folder already there is first renamed aside (``.old-...``) and deleted after; what
a landing killed meanwhile leaves is resolved by the next holder of the warehouse lock
before anything reads the landing (the ``.old-`` folder put back, the rest deleted). A
reader of the ``run_id=*`` glob therefore sees a run whole or not at all. (The mechanics are
:mod:`concord_common.folders`, which the probe's landing shares.)

Every path is built inside the landing folder and refused when it leaves it or passes
through a symbolic link. Each Parquet file carries the folder's fingerprint (a hash of
everything it was made from) in its metadata: an unchanged input is not written again.

A table is written whole (:func:`write_folder`) or piece by piece (:class:`TableWriter` in a
:func:`staged_folder`): the file is the same, row groups of :data:`ROW_GROUP_ROWS` rows.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from concord_common import folders, inside_without_links
from concord_common.sql import sql_literal
from concord_io.errors import ConcordError, disk_error, printable

#: Rows per Parquet row group (docs/landing.md): bounded memory for readers.
ROW_GROUP_ROWS = 65_536
FINGERPRINT = b"concord.fingerprint"


def checked_path(root: Path, relative: str) -> Path:
    """``root / relative``, refused when it resolves outside ``root`` or when any part of it
    below ``root`` is a symbolic link (nothing is written through a link). A landing path is
    made of names (``items/task=<task>``): one with ``..``, ``.``, a blank or an absolute part
    is refused even where it resolves inside, as it could name the landing folder itself
    (which a replacement or a removal would then delete whole)."""
    parts = relative.split("/")
    if any(part.strip() in ("", ".", "..") or part != part.strip() for part in parts):
        raise ConcordError(
            f"landing path {printable(repr(relative))} has a part that is not a name "
            f"(blank, '.' or '..'); nothing was written or removed under {printable(root)}",
            hint="name tasks and runs with letters, digits, _, - and . (xcloze, fewshot-5)",
        )
    return inside_without_links(
        root,
        relative,
        what="landing path",
        hint="remove the link (the landing folder holds only what the reader wrote)",
        error=ConcordError,
    )


def landed_with(root: Path, relative: str, tables: Iterable[str], fingerprint: str) -> bool:
    """Whether ``<root>/<relative>`` is landed with ``fingerprint``: an unchanged input is not
    written again. Every one of its ``tables`` must be there and carry the fingerprint, so a
    folder with a table lost or left from another landing is written again (dbt's advice,
    "land again", then works). (A replacement cut off between its renames was undone when
    the warehouse lock was taken: :func:`concord_common.warehouse_lock.settle_landing`.)"""
    existing = checked_path(root, relative)
    return existing.is_dir() and all(
        fingerprint_of(existing, table) == fingerprint for table in tables
    )


def fingerprint_of(folder: Path, table: str) -> str | None:
    """The fingerprint a landed table was written with, or None (absent, unreadable)."""
    try:
        metadata = pq.read_schema(folder / f"{table}.parquet").metadata or {}
    except (OSError, pa.ArrowException):
        return None
    value = metadata.get(FINGERPRINT)
    return value.decode() if value else None


class TableWriter:
    """One landing table written piece by piece as ``<folder>/<name>.parquet`` with
    ``schema`` and the folder's fingerprint: rows are held until they fill a row group, so
    the file is the one :func:`write_folder` writes from the whole table."""

    def __init__(self, folder: Path, name: str, schema: pa.Schema, fingerprint: str) -> None:
        self.path = folder / f"{name}.parquet"
        self.schema = schema.with_metadata(
            {**(schema.metadata or {}), FINGERPRINT: fingerprint.encode()}
        )
        self.num_rows = 0
        self._held: list[pa.Table] = []
        self._held_rows = 0
        self._writer = pq.ParquetWriter(self.path, self.schema)

    def write(self, table: pa.Table) -> None:
        """Append ``table`` (the schema's columns, in order)."""
        self.num_rows += table.num_rows
        self._held.append(table.replace_schema_metadata(self.schema.metadata))
        self._held_rows += table.num_rows
        if self._held_rows >= ROW_GROUP_ROWS:
            # one chunk per column, as a whole table is written: the same pages
            held = pa.concat_tables(self._held).combine_chunks()
            full = held.num_rows - held.num_rows % ROW_GROUP_ROWS
            self._writer.write_table(held.slice(0, full), row_group_size=ROW_GROUP_ROWS)
            rest = held.slice(full)
            self._held, self._held_rows = [rest], rest.num_rows

    def close(self) -> None:
        """Write the last row group, close the file and make it durable."""
        held = (
            pa.concat_tables(self._held) if self._held else self.schema.empty_table()
        ).combine_chunks()
        self._held = []
        # as pq.write_table: an empty table is written as one empty row group
        if held.num_rows or not self.num_rows:
            self._writer.write_table(held, row_group_size=ROW_GROUP_ROWS)
        self._writer.close()
        folders.fsync(self.path)


@contextmanager
def staged_folder(root: Path, relative: str) -> Iterator[Path]:
    """A hidden folder to write ``<root>/<relative>``'s files in: renamed into place, replacing
    an earlier version, when the block ends; removed if it raises."""
    with disk_errors(root, relative):
        staging = open_staging(root, relative)
        try:
            yield staging
            commit_staging(root, relative, staging)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise


@contextmanager
def disk_errors(root: Path, relative: str) -> Iterator[None]:
    """A full disk or a refused permission while ``<root>/<relative>`` is written: one line
    naming the folder and what to do."""
    try:
        yield
    except OSError as error:
        fix = "free space or fix the landing folder's permissions"
        problem = disk_error(error, root / relative, fix)
        if problem is None:
            raise
        raise problem from error


def open_staging(root: Path, relative: str) -> Path:
    """A new hidden folder beside ``<root>/<relative>`` to write its files in, until
    :func:`commit_staging` renames it into place (the caller removes it if it never does)."""
    final = checked_path(root, relative)
    with disk_errors(root, relative):
        final.parent.mkdir(parents=True, exist_ok=True)
        staging = folders.hidden_sibling(final, "tmp")
        staging.mkdir()
    return staging


def commit_staging(root: Path, relative: str, staging: Path) -> None:
    """The written ``staging`` folder made durable and renamed into ``<root>/<relative>``,
    replacing an earlier version."""
    with disk_errors(root, relative):
        folders.fsync(staging)
        folders.swap_into_place(staging, checked_path(root, relative))


#: The DuckDB type of each Arrow type a landing table declares (concord_io.landing.schemas).
DUCKDB_TYPES = {
    pa.string(): "varchar",
    pa.int64(): "bigint",
    pa.int32(): "integer",
    pa.int16(): "smallint",
    pa.float64(): "double",
}


@dataclass(frozen=True)
class Written:
    """What a table's writing wrote: its rows, and the nulls of each column."""

    rows: int
    nulls: dict[str, int]

    @classmethod
    def of(cls, table: pa.Table) -> Written:
        return cls(table.num_rows, {c: table.column(c).null_count for c in table.column_names})


def copy_query(
    con: duckdb.DuckDBPyConnection, query: str, folder: Path, schema: pa.Schema, name: str,
    fingerprint: str,
) -> Written:  # fmt: skip
    """The rows of ``query`` written by DuckDB as ``<folder>/<name>.parquet`` with the
    columns and types of ``schema`` and the folder's fingerprint, in row groups of
    :data:`ROW_GROUP_ROWS`: the engine writes a run's rows without handing them to Python.
    A null in a non-null column is a bug of the reader (the input was refused before): it
    raises, from the file's own statistics (the caller's staged folder is then removed).
    Returns the rows and nulls written."""
    path = folder / f"{name}.parquet"
    columns = ", ".join(f"{_cast(field.name, field.type)} as {field.name}" for field in schema)
    key, value = sql_literal(FINGERPRINT.decode()), sql_literal(fingerprint)
    (rows, statistics) = con.execute(
        f"copy (select {columns} from ({query})) to {sql_literal(path)} (format parquet, "
        f"row_group_size {ROW_GROUP_ROWS}, kv_metadata {{{key}: {value}}}, "
        "return_stats true)"
    ).fetchone()[1::3]  # type: ignore[index]
    found = {column.strip('"'): int(stats.get("null_count", 0)) for column, stats in
             (statistics or {}).items()}  # fmt: skip
    nulls = {field.name: found.get(field.name, 0) for field in schema}
    bad = [f.name for f in schema if not f.nullable and nulls[f.name]]
    if bad:
        raise RuntimeError(f"reader bug: {name}.{bad[0]} has {nulls[bad[0]]} null(s)")
    folders.fsync(path)
    return Written(int(rows), nulls)


def _cast(column: str, kind: pa.DataType) -> str:
    return f"{column}::{DUCKDB_TYPES[kind]}"


def write_table(folder: Path, name: str, table: pa.Table, fingerprint: str) -> None:
    """``table`` written whole as ``<folder>/<name>.parquet``."""
    writer = TableWriter(folder, name, table.schema, fingerprint)
    writer.write(table)
    writer.close()


def write_folder(root: Path, relative: str, tables: dict[str, pa.Table], fingerprint: str) -> Path:
    """Write ``tables`` as ``<root>/<relative>/<name>.parquet`` and rename the folder into
    place, replacing an earlier version."""
    with staged_folder(root, relative) as staging:
        for name, table in tables.items():
            write_table(staging, name, table, fingerprint)
    return checked_path(root, relative)


def remove_folder(root: Path, relative: str) -> None:
    """Move a landed folder out of the dbt glob in one rename, then delete it."""
    folders.remove(checked_path(root, relative))
