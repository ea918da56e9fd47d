"""The records of the runs between reading and landing.

Everything is read and checked before anything lands (a refused input lands nothing), and a
run may take records from several files: the records read wait for their run to be split
and written. A long file's are not held at all: DuckDB reads them where they lie when their
run is written (:class:`Deferred`); a wide file is one run, written into its hidden folder
as soon as it is read (``concord_io.landing.mcq.Staged``), its records read where they lie
in the parsed file. The records of sample logs, parsed in Python, wait as Arrow tables
while there are at most :data:`SPILL_ROWS` of them in all; beyond, every table waiting is
written to a Parquet file in a hidden folder of the landing folder (``.spill-*``, removed
when the landing ends; DuckDB spills there too), which the run's split reads back with
DuckDB (:meth:`Records.relation`). The landing's memory therefore does not grow with the
size of its inputs: the tables waiting, and DuckDB's memory limit.

Each record carries ``record_order``, its place in the order records were read: a run's
records, sorted by it, are in the order the landing writes them (by file, then row).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from concord_common.sql import sql_literal
from concord_io.errors import disk_error
from concord_io.landing import schemas
from concord_io.landing.sources import SourceFile

#: Records held in memory, in all, before they are written to spill files (about 90 MB).
SPILL_ROWS = 1 << 19

#: The columns a record keeps while it waits: the answers' (less ``run_id``, its run's) and
#: its place in the reading order.
RECORDS = pa.schema(
    [pa.field(f.name, f.type) for f in schemas.ANSWERS if f.name != "run_id"]
    + [pa.field("record_order", pa.int64())]
)

#: Columns of few values, dictionary-encoded in a spill file (the others are written plain:
#: encoding an item id or a row number costs time and saves nothing).
REPEATING = [
    "task",
    "language",
    "chosen_option",
    "invalid_reason",
    "gold_option",
    "domain_label",
    "domain",
    "source_column",
    "source_file",
    "content_hash",
]


@dataclass(eq=False)
class FileCheck:
    """A check over one file's records that holds for all its runs (``sql``: one boolean,
    over the relations its Deferred pieces name), made when the first of them is written
    and kept for the others: an unchanged file is never checked."""

    sql: str
    result: bool | None = None

    @classmethod
    def known(cls) -> FileCheck:
        """A check known to hold without a query (what the file's shape guarantees)."""
        return cls("", True)

    def holds(self, con: duckdb.DuckDBPyConnection) -> bool:
        if self.result is None:
            ((holds,),) = con.execute(self.sql).fetchall()
            self.result = bool(holds)
        return self.result


@dataclass(frozen=True)
class Deferred:
    """Records DuckDB reads where they lie, when their run is split and written: ``sql``
    selects the :data:`RECORDS` columns but ``record_order``, with ``source_row`` (1 = the
    first record of its file); ``tables`` the Arrow tables it names, registered on the
    connection that reads it; ``sources`` the files it reads, checked unchanged after."""

    sql: str
    tables: dict[str, pa.Table]
    sources: tuple[SourceFile, ...]
    #: the ``record_order`` of its file's record 1
    first_order: int
    #: SQL: each record's place among the file's, from 0, in reading order
    position: str = "source_row - 1"
    #: whether no record of its file is set aside by a rule within the file
    #: (``concord_io.landing.long.LongFile.clean``); None: not known
    clean: FileCheck | None = None


#: A run's records: tables in memory, spill files and records read where they lie, in the
#: order they were read.
Pieces = list[pa.Table | Path | Deferred]


class Records:
    """The records waiting to land: lists of pieces (:meth:`pieces`), a run's or a file's,
    each in reading order. ``folder`` makes the folder spill files go in, when the first is
    written, once more than :data:`SPILL_ROWS` records wait in memory; without it every
    record stays in memory."""

    def __init__(self, folder: Callable[[], Path] | None = None) -> None:
        self._make_folder = folder
        self._limit = SPILL_ROWS if folder is not None else None
        self._folder: Path | None = None
        self._lists: list[Pieces] = []
        self._held = 0
        self._next_order = 0
        self._files = 0
        #: the tables :meth:`relation` registered, let go by :meth:`release`
        self._registered: set[str] = set()

    def pieces(self) -> Pieces:
        """A new list of pieces, whose tables are spilled with the others'."""
        pieces: Pieces = []
        self._lists.append(pieces)
        return pieces

    def forget(self, pieces: Pieces) -> None:
        """``pieces`` are no longer waiting (their run landed): let go of their tables and
        delete their spill files."""
        self._lists = [p for p in self._lists if p is not pieces]
        for piece in pieces:
            if isinstance(piece, pa.Table):
                self._held -= piece.num_rows
            elif isinstance(piece, Path):
                piece.unlink(missing_ok=True)
        pieces.clear()

    def move(self, source: Pieces, target: Pieces) -> None:
        """Append ``source``'s pieces to ``target`` (a file's records to their run)."""
        target.extend(source)
        self._lists = [p for p in self._lists if p is not source]
        source.clear()

    def reserve(self, n_rows: int) -> int:
        """The ``record_order`` of record 1 of a file of ``n_rows`` records read where it lies
        (:meth:`defer`), its place in the reading order reserved."""
        first = self._next_order
        self._next_order += n_rows
        return first

    @staticmethod
    def defer(pieces: Pieces, piece: Deferred) -> None:
        """Append records read where they lie (numbered by :meth:`reserve`) to ``pieces``."""
        pieces.append(piece)

    def add(self, pieces: Pieces, table: pa.Table) -> None:
        """Append ``table`` (records as read: the :data:`RECORDS` columns, less
        ``record_order``, and any others) to ``pieces``, numbered in reading order."""
        orders = np.arange(self._next_order, self._next_order + table.num_rows, dtype=np.int64)
        self._next_order += table.num_rows
        columns = [table.column(f.name).cast(f.type) for f in RECORDS if f.name != "record_order"]
        pieces.append(pa.Table.from_arrays([*columns, pa.array(orders)], schema=RECORDS))
        self._held += table.num_rows
        if self._limit is not None and self._held > self._limit:
            for waiting in self._lists:
                self._spill(waiting)

    def relation(self, con: duckdb.DuckDBPyConnection, pieces: Pieces, name: str) -> str:
        """SQL naming ``pieces``' records on ``con``: the table ``name`` registered, when they
        are all in memory, or else the union of their tables (registered as ``name_<k>``),
        spill files and records read where they lie."""
        if all(isinstance(p, pa.Table) for p in pieces):
            tables = [p for p in pieces if isinstance(p, pa.Table)]
            self._register(con, name, pa.concat_tables(tables) if tables else RECORDS.empty_table())
            return name
        columns = ", ".join(f.name for f in RECORDS)
        parts = []
        paths = [p for p in pieces if isinstance(p, Path)]
        if paths:
            files = ", ".join(sql_literal(str(p)) for p in paths)
            parts.append(f"select {columns} from read_parquet([{files}])")
        for k, piece in enumerate(pieces):
            if isinstance(piece, pa.Table):
                self._register(con, f"{name}_{k}", piece)
                parts.append(f"select {columns} from {name}_{k}")
            elif isinstance(piece, Deferred):
                for table_name, table in piece.tables.items():
                    self._register(con, table_name, table)
                order = f"{piece.first_order} + ({piece.position}) as record_order"
                parts.append(f"select {columns.removesuffix(', record_order')}, {order} "
                             f"from ({piece.sql})")  # fmt: skip
        return "(" + "\nunion all\n".join(parts) + ")"

    def engine_spill(self, con: duckdb.DuckDBPyConnection) -> None:
        """Let ``con`` spill beyond its memory limit into the spill folder (DuckDB's default
        is ``.tmp`` in the working folder: never outside the landing folder)."""
        if self._make_folder is None:
            return
        if self._folder is None:
            self._folder = self._make_folder()
        con.execute(f"set temp_directory = {sql_literal(str(self._folder / 'engine'))}")

    def _register(self, con: duckdb.DuckDBPyConnection, name: str, table: pa.Table) -> None:
        con.register(name, table)
        self._registered.add(name)

    def release(self, con: duckdb.DuckDBPyConnection) -> None:
        """Let go of every table :meth:`relation` registered on ``con`` (a run written)."""
        for name in self._registered:
            con.unregister(name)
        self._registered.clear()

    @staticmethod
    def check_unchanged(pieces: Pieces) -> None:
        """Refuse when a file whose records were read where they lie changed since it was
        hashed (its records may not be the bytes hashed)."""
        for piece in pieces:
            if isinstance(piece, Deferred):
                for source in piece.sources:
                    source.check_unchanged()

    def close(self) -> None:
        """Delete the spill files."""
        self._lists, self._held = [], 0
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    def _spill(self, pieces: Pieces) -> None:
        """Write each run of consecutive tables of ``pieces`` to one spill file."""
        i = 0
        while i < len(pieces):
            if not isinstance(pieces[i], pa.Table):
                i += 1
                continue
            j = i
            while j < len(pieces) and isinstance(pieces[j], pa.Table):
                j += 1
            tables = [p for p in pieces[i:j] if isinstance(p, pa.Table)]
            pieces[i:j] = [self._write(pa.concat_tables(tables))]
            self._held -= sum(t.num_rows for t in tables)
            i += 1

    def _path(self) -> Path:
        """The next spill file's path (the folder made with the first)."""
        if self._folder is None:
            assert self._make_folder is not None
            self._folder = self._make_folder()
        self._files += 1
        return self._folder / f"records-{self._files:06d}.parquet"

    def _disk_error(self, error: Exception) -> Exception | None:
        assert self._folder is not None
        return disk_error(error, self._folder, "free space in the landing folder")

    def _write(self, table: pa.Table) -> Path:
        path = self._path()
        try:
            # read once, whole: no statistics
            pq.write_table(table, path, use_dictionary=REPEATING, write_statistics=False)
        except OSError as error:
            problem = self._disk_error(error)
            if problem is None:
                raise
            raise problem from error
        return path


def tables(pieces: Pieces) -> list[pa.Table]:
    """``pieces`` held or spilled (a sample log's, never read where they lie) as tables."""
    return [
        p if isinstance(p, pa.Table) else pq.read_table(p)
        for p in pieces
        if not isinstance(p, Deferred)
    ]


def spill_folder(root: Path) -> Callable[[], Path]:
    """What makes a spill folder in the landing folder ``root`` (hidden: no glob of the
    landing's folders matches it)."""

    def make() -> Path:
        try:
            root.mkdir(parents=True, exist_ok=True)
            return Path(tempfile.mkdtemp(prefix=".spill-", dir=root))
        except OSError as error:
            problem = disk_error(error, root, "free space or fix the landing folder's permissions")
            if problem is None:
                raise
            raise problem from error

    return make
