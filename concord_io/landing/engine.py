"""The reader's engine: one landing, one DuckDB connection, one write path (docs/landing.md).

A landing checks and locks its folder once (:func:`open_landing`), reads the study's vars
once, and opens one DuckDB connection for everything it reads. The formats (wide, long,
lm-eval samples, items) turn a file into SQL over that connection; what must wait for its
run (records a format parsed in Python) waits there as a temporary table
(:meth:`Landing.hold`), inside DuckDB's memory limit and spilling as DuckDB does, into the
landing's hidden ``.spill-`` folder; records in a file DuckDB reads itself are read where
they lie.

Every landed folder (a run, a task's items, a seed, an area's placeholder) is written the
one way, :meth:`Landing.stage`: DuckDB copies each table into a hidden folder
(``.tmp-...``), each file fsynced; :meth:`Landing.commit` renames every staged folder into
place once its study has read and checked everything, replacing an earlier version (a
refused input lands nothing: :meth:`Landing.discard`). What a landing killed meanwhile
leaves is resolved by the next holder of the warehouse lock before anything reads the
landing (:func:`concord_common.folders.settle`). A reader of the ``run_id=*`` glob
therefore sees a folder whole or not at all.

Every path is built inside the landing folder and refused when it leaves it or passes
through a symbolic link. Each Parquet file carries the folder's fingerprint (a hash of
everything it was made from) in its metadata: an unchanged input is not written again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from concord_common import folders, inside_without_links, warehouse_lock
from concord_common.probe_landing import SCHEMAS as PROBE_SCHEMAS
from concord_common.project_dir import input_folders
from concord_common.sql import sql_literal
from concord_io.connect import open_duckdb
from concord_io.errors import ConcordError, disk_error, printable
from concord_io.landing import schemas
from concord_io.paths import serving_folder_of

#: Rows per Parquet row group (docs/landing.md): bounded memory for readers.
ROW_GROUP_ROWS = 65_536
FINGERPRINT = b"concord.fingerprint"
#: The folder an area keeps while it has no real one (Spark's Parquet reader refuses a glob
#: that matches no file; DuckDB reads it as no rows): its tables with no rows. Never a run
#: id or a task (those start with a letter or a digit).
PLACEHOLDER = "_empty"
#: area -> (its folders' key, its tables)
AREAS: dict[str, tuple[str, dict[str, pa.Schema]]] = {
    "mcq": ("run_id", {n: s for n, s in schemas.TABLES.items() if n != "items"}),
    "items": ("task", {"items": schemas.ITEMS}),
    "probe": ("run_id", PROBE_SCHEMAS),
}


@functools.cache  # asked once per run; reading the package metadata takes 1-2 ms each time
def reader_version() -> str:
    try:
        return metadata.version("concord")
    except metadata.PackageNotFoundError:
        return "unknown"


def fingerprint(*parts: object) -> str:
    """A hash of what a folder is made from (with the reader's version)."""
    text = json.dumps([reader_version(), *parts], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Outcome:
    """What happened to one landed folder: ``landed`` (new), ``replaced`` (its inputs
    changed), ``unchanged``, or ``removed`` (no longer registered)."""

    status: str
    folder: str
    detail: str

    def line(self) -> str:
        return f"{self.status:<9} {self.folder}  {self.detail}"


@dataclass
class LandingReport:
    outcomes: list[Outcome] = field(default_factory=list)
    #: inputs read but not landed again (the same bytes under another name)
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [o.line() for o in self.outcomes] + [f"note      {n}" for n in self.notes]

    def status_of(self, folder: str) -> str | None:
        return next((o.status for o in self.outcomes if o.folder == folder), None)


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


def fingerprint_of(folder: Path, table: str) -> str | None:
    """The fingerprint a landed table was written with, or None (absent, unreadable)."""
    try:
        found = pq.read_schema(folder / f"{table}.parquet").metadata or {}
    except (OSError, pa.ArrowException):
        return None
    value = found.get(FINGERPRINT)
    return value.decode() if value else None


def landed_with(root: Path, relative: str, tables: object, fingerprint: str) -> bool:
    """Whether ``<root>/<relative>`` is landed with ``fingerprint``: every one of its
    ``tables`` there and carrying it, so a folder with a table lost or left from another
    landing is written again."""
    existing = checked_path(root, relative)
    return existing.is_dir() and all(
        fingerprint_of(existing, table) == fingerprint
        for table in tables  # type: ignore[attr-defined]
    )


@contextmanager
def disk_errors(where: Path) -> Iterator[None]:
    """A full disk or a refused permission while ``where`` is written: one line naming it
    and what to do."""
    try:
        yield
    except OSError as error:
        problem = disk_error(error, where, "free space or fix the landing folder's permissions")
        if problem is None:
            raise
        raise problem from error


#: The DuckDB type of each Arrow type a landing table declares.
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


def checked_landing_folder(landing_dir: Path | str, project: Path | str, variables: dict) -> Path:
    """The landing folder, resolved; refused (before anything is read or written) when it is
    a file, lies in a serving folder, whose published versions are never written again, or
    holds or lies in an input folder of ``project`` (:func:`input_folders`: the seed files
    would land among the inputs, then be refused as unregistered input at every build);
    ``variables``: the project's vars (:func:`concord_common.project_dir.project_vars`)."""
    root = Path(landing_dir).resolve()
    hint = "set CONCORD_LANDING_DIR to a folder of its own (default warehouse/landing)"
    if root.exists() and not root.is_dir():
        raise ConcordError(f"landing folder {printable(root)} is a file, not a folder", hint=hint)
    serving = serving_folder_of(root)
    if serving is not None:
        raise ConcordError(
            f"landing folder {printable(root)} lies in the serving folder {printable(serving)}",
            hint=hint,
        )
    for folder in input_folders(Path(project), variables):
        inputs = folder.resolve()
        if root == inputs or root.is_relative_to(inputs) or inputs.is_relative_to(root):
            where = "lies in" if root.is_relative_to(inputs) else "holds"
            raise ConcordError(
                f"landing folder {printable(root)} {where} the input folder "
                f"{printable(inputs)}: the landing is written and replaced whole, never among "
                "the inputs",
                hint=hint,
            )
    return root


class Landing:
    """One landing of the folder ``root`` (checked and held under the warehouse lock by
    :func:`open_landing`; ``root`` None: nothing is written, what ``concord add`` checks).
    Use it in a ``with`` block: its connection and spill folder go when it ends."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self.now = datetime.now(UTC)
        self.con = open_duckdb()
        self._spill: Path | None = None
        #: the tables waiting (:meth:`hold`)
        self._held = 0
        #: relative path -> its hidden folder, written whole, and its outcome's detail
        self._staged: dict[str, tuple[Path, str]] = {}
        #: folders made for hidden ones (removed by discard where left empty)
        self._made: list[Path] = []

    def __enter__(self) -> Landing:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()
        self.con.close()
        if self._spill is not None:
            shutil.rmtree(self._spill, ignore_errors=True)
        # Arrow's allocator keeps freed pages for reuse; in dbt's process the models need them
        pa.default_memory_pool().release_unused()

    def spill_here(self) -> None:
        """Let DuckDB spill beyond its memory limit into a hidden folder of the landing
        (DuckDB's default is ``.tmp`` in the working folder: never outside the landing)."""
        if self.root is None or self._spill is not None:
            return
        with disk_errors(self.root):
            self.root.mkdir(parents=True, exist_ok=True)
            self._spill = Path(tempfile.mkdtemp(prefix=".spill-", dir=self.root))
        self.con.execute(f"set temp_directory = {sql_literal(str(self._spill / 'engine'))}")

    def hold(self, table: pa.Table, name: str = "") -> str:
        """``table`` (records a format parsed in Python) waiting in DuckDB until its run is
        written, as a temporary table (``name``, or a new one): its name. The one way a
        record waits: within DuckDB's memory limit, spilling as DuckDB does."""
        self.spill_here()
        self._held += 1
        name = name or f"held_{self._held}"
        self.con.register("incoming", table)
        self.con.execute(f"create temp table {name} as select * from incoming")
        self.con.unregister("incoming")
        return name

    def drop(self, names: list[str]) -> None:
        """Let go of tables :meth:`hold` made (their run is written)."""
        for name in names:
            self.con.execute(f"drop table if exists {name}")

    # -- the one write path --------------------------------------------------------------

    def stage(
        self,
        relative: str,
        tables: dict[str, tuple[pa.Schema, str | pa.Table | None]],
        fingerprint: str,
        detail: str = "",
    ) -> dict[str, Written]:
        """Write ``<root>/<relative>`` whole into a hidden folder, renamed into place by
        :meth:`commit`: each table (name -> its schema and the SQL of its rows on the
        landing's connection, an Arrow table, or None for no rows) copied by DuckDB with the
        schema's columns and types and the folder's ``fingerprint``, in row groups of
        :data:`ROW_GROUP_ROWS`. A null in a non-null column is a bug of the reader (the
        input was refused before): it raises. Returns what each table wrote."""
        assert self.root is not None
        final = checked_path(self.root, relative)
        made = final.parent
        while not made.exists() and made not in self._made:
            self._made.append(made)
            made = made.parent
        with disk_errors(final):
            final.parent.mkdir(parents=True, exist_ok=True)
            staging = folders.hidden_sibling(final, "tmp")
            staging.mkdir()
            self._staged[relative] = (staging, detail)
            return {
                name: self._copy(staging / f"{name}.parquet", schema, rows, fingerprint)
                for name, (schema, rows) in tables.items()
            }

    def _copy(
        self, path: Path, schema: pa.Schema, rows: str | pa.Table | None, fingerprint: str
    ) -> Written:
        if rows is None or isinstance(rows, pa.Table):
            table = schema.empty_table() if rows is None else rows
            self.con.register("staged_rows", table)
            query, columns = "select * from staged_rows", "*"
        else:
            query = rows
            columns = ", ".join(f"{f.name}::{DUCKDB_TYPES[f.type]} as {f.name}" for f in schema)
        key, value = sql_literal(FINGERPRINT.decode()), sql_literal(fingerprint)
        (count, statistics) = self.con.execute(
            f"copy (select {columns} from ({query})) to {sql_literal(str(path))} "
            f"(format parquet, row_group_size {ROW_GROUP_ROWS}, kv_metadata {{{key}: {value}}}, "
            "return_stats true)"
        ).fetchone()[1::3]  # type: ignore[index]
        if not isinstance(rows, str):
            self.con.unregister("staged_rows")
        found = {column.strip('"'): int(stats.get("null_count", 0)) for column, stats in
                 (statistics or {}).items()}  # fmt: skip
        nulls = {f.name: found.get(f.name, 0) for f in schema}
        bad = [f.name for f in schema if not f.nullable and nulls[f.name]]
        if bad:
            raise RuntimeError(f"reader bug: {path.stem}.{bad[0]} has {nulls[bad[0]]} null(s)")
        folders.fsync(path)
        return Written(int(count), nulls)

    def staged_detail(self, relative: str, detail: str) -> None:
        """Say what the staged ``relative`` holds (known once it is written)."""
        self._staged[relative] = (self._staged[relative][0], detail)

    def commit(self) -> dict[str, Outcome]:
        """Every staged folder made durable and renamed into place, replacing an earlier
        version: what happened to each (by its path)."""
        assert self.root is not None
        outcomes = {}
        for relative, (staging, detail) in sorted(self._staged.items()):
            final = checked_path(self.root, relative)
            status = "replaced" if final.exists() else "landed"
            with disk_errors(final):
                folders.fsync(staging)
                folders.swap_into_place(staging, final)
            outcomes[relative] = Outcome(status, relative, detail)
        self._staged.clear()
        self._made.clear()
        return outcomes

    def discard(self) -> None:
        """Remove every staged folder not renamed into place, and the folders made for
        them: a refused input leaves no trace."""
        for staging, _ in self._staged.values():
            shutil.rmtree(staging, ignore_errors=True)
        for made in self._made:  # the deepest first
            if made.is_dir() and not any(made.iterdir()):
                made.rmdir()
        self._staged.clear()
        self._made.clear()

    def landed_with(self, relative: str, tables: object, fingerprint: str) -> bool:
        return self.root is not None and landed_with(self.root, relative, tables, fingerprint)

    def remove_others(self, area: str, kept: set[str], why: str) -> list[Outcome]:
        """Remove the folders of ``area`` not in ``kept`` (but its placeholder): what was
        removed."""
        assert self.root is not None
        key = AREAS[area][0] if area in AREAS else "seed"
        folder = checked_path(self.root, area)
        removed: list[Outcome] = []
        for path in sorted(folder.glob(f"{key}=*")) if folder.is_dir() else []:
            relative = f"{area}/{path.name}"
            if path.name != f"{key}={PLACEHOLDER}" and relative not in kept and path.is_dir():
                folders.remove(checked_path(self.root, relative))
                removed.append(Outcome("removed", relative, why))
        return removed


def keep_placeholders(landing: Landing) -> None:
    """Write the placeholder of each area of the landing that has no real folder; remove it
    from an area that has one."""
    root = landing.root
    assert root is not None
    for area, (key, tables) in AREAS.items():
        relative = f"{area}/{key}={PLACEHOLDER}"
        folder = checked_path(root, area)
        real = folder.is_dir() and any(
            p.is_dir() and p.name != f"{key}={PLACEHOLDER}" for p in folder.glob(f"{key}=*")
        )
        there = checked_path(root, relative).is_dir()
        if real and there:
            folders.remove(checked_path(root, relative))
        elif not real and not there:
            empty = {name: (schema, None) for name, schema in tables.items()}
            landing.stage(relative, empty, PLACEHOLDER)  # type: ignore[arg-type]
    landing.commit()


@contextmanager
def open_landing(
    landing_dir: Path | str, project: Path | str, variables: dict
) -> Iterator[Landing]:
    """A landing of ``landing_dir``: the folder checked (:func:`checked_landing_folder`) and
    held under the warehouse lock (:mod:`concord_common.warehouse_lock`) while it is written,
    so no build reads it and no other landing or probe run writes it meanwhile."""
    root = checked_landing_folder(landing_dir, project, variables)
    with warehouse_lock.held(root, "concord land", error=ConcordError), Landing(root) as landing:
        yield landing
