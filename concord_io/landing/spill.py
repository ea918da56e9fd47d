"""The records of the runs between reading and landing, held in memory up to a bound.

Everything is read and checked before anything lands (a refused input lands nothing), and a
run may take records from several files: the records read wait for their run to be split
and written. They wait as Arrow tables while there are at most :data:`SPILL_ROWS` of them in
all; beyond, every table waiting is written to a Parquet file in a hidden folder of the
landing folder (``.spill-*``, removed when the landing ends), which the run's split reads
back with DuckDB (:meth:`Records.relation`). The landing's memory therefore does not grow
with the size of its inputs: one batch of records, the tables waiting, and DuckDB's memory
limit.

Each record carries ``record_order``, its place in the order records were read: a run's
records, sorted by it, are in the order the landing writes them (by file, then row).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from concord_io.errors import disk_error
from concord_io.landing import schemas

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

#: A run's records: tables in memory and spill files, in the order they were read.
Pieces = list[pa.Table | Path]


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
            else:
                piece.unlink(missing_ok=True)
        pieces.clear()

    def move(self, source: Pieces, target: Pieces) -> None:
        """Append ``source``'s pieces to ``target`` (a file's records to their run)."""
        target.extend(source)
        self._lists = [p for p in self._lists if p is not source]
        source.clear()

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
        are all in memory, or else their spill files."""
        if all(isinstance(p, pa.Table) for p in pieces):
            tables = [p for p in pieces if isinstance(p, pa.Table)]
            con.register(name, pa.concat_tables(tables) if tables else RECORDS.empty_table())
            return name
        self._spill(pieces)
        paths = ", ".join(_literal(str(p)) for p in pieces)
        return f"read_parquet([{paths}])"

    def batches(self, pieces: Pieces, rows: int) -> Iterator[pa.Table]:
        """``pieces``' records in reading order, at most ``rows`` at a time."""
        for piece in pieces:
            if isinstance(piece, pa.Table):
                for batch in piece.to_batches(max_chunksize=rows):
                    yield pa.Table.from_batches([batch], schema=RECORDS)
                continue
            with pq.ParquetFile(piece) as parquet:
                for batch in parquet.iter_batches(batch_size=rows):
                    yield pa.Table.from_batches([batch]).cast(RECORDS)

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

    def _write(self, table: pa.Table) -> Path:
        if self._folder is None:
            assert self._make_folder is not None
            self._folder = self._make_folder()
        self._files += 1
        path = self._folder / f"records-{self._files:06d}.parquet"
        try:
            # read once, whole: no statistics
            pq.write_table(table, path, use_dictionary=REPEATING, write_statistics=False)
        except OSError as error:
            problem = disk_error(error, self._folder, "free space in the landing folder")
            if problem is None:
                raise
            raise problem from error
        return path


def tables(pieces: Pieces) -> list[pa.Table]:
    """``pieces`` as tables (spill files read back)."""
    return [p if isinstance(p, pa.Table) else pq.read_table(p) for p in pieces]


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


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
