"""Publish the marts into a versioned, read-only serving folder that BI tools can hold open.

DuckDB allows one writer or many readers of a file, never both, so readers never open the
build database. After a successful build (and a passing quality checkpoint of that very
build file, see :mod:`concord_io.quality`) every table (or view) in schema ``marts`` is
copied into a new version folder; the database and its Parquet export are one unit::

    <serving>/
      concord.duckdb -> current/concord.duckdb    what readers open (never changes)
      parquet        -> current/parquet           one Parquet file per mart + catalogue.json
      current        -> versions/<stamp>          the one link a publish flips
      published.json                              the record: every published version
      versions/<stamp>/concord.duckdb, parquet/   one complete version

A publish writes ``versions/<stamp>.partial/`` (the database with storage version v1.4.0,
so the DuckDB 1.4 that BI drivers bundle can open it, with the table and column
descriptions of ``target/manifest.json`` as COMMENTs, checkpointed, closed and fsynced;
then the Parquet files read back from it), renames it to ``versions/<stamp>/``, atomically
replaces the symlink ``current`` (both reader paths change together) and then adds the
version to ``published.json``. Each step is durable (fsync) before the next starts.

Retention counts only published versions: the record is the truth, plus the version
``current`` points at (a publish killed between the flip and the record). The newest
``keep`` published versions stay, and never fewer than the current and the previous one;
every other version folder is removed: published ones that fell out of retention, orphans
(written but never published: a publish killed before its flip) and ``*.partial`` or
``*.removing`` leftovers of a killed publish. A version leaves the record before its folder
is removed, so the record never names a missing version. A record that is missing or empty
is rebuilt from the version folders first (:func:`recover_record`): retention never deletes
a version it cannot account for.

``--when-told``: the version is written first, then the publish waits for a line on its
stdin: ``go`` checks the quality gate and seals it (the rename, the flip, the record),
anything else (or stdin closed) removes it and changes nothing. ``concord build`` starts
publish so while its quality checkpoint runs, on the core the checkpoint leaves free, and
tells it to go once the checkpoint passed: nothing is published before that verdict.

A reader holding an old version keeps its consistent view (the file is never written
again; on POSIX it survives its removal until closed) and sees the new one when it
reconnects. Anything that goes wrong before the flip leaves the current version as it was;
after it, the new version is complete and current. Two publishes never interleave (a lock
file in the serving folder).

    python -m concord_io.serving.publish --database warehouse/concord.duckdb \\
        --serving-dir warehouse/serving --manifest target/manifest.json
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import re
import shutil
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from concord_common import GO, folders, warehouse_lock
from concord_common.sql import sql_identifier, sql_literal
from concord_io import paths
from concord_io.errors import ConcordError, disk_error, printable, run_main

SCHEMA = "marts"
META_SCHEMA = "meta"
SERVING_STORAGE_VERSION = "v1.4.0"
CURRENT_DB = "concord.duckdb"
CURRENT_PARQUET = "parquet"
CURRENT = "current"
VERSIONS = "versions"
RECORD = "published.json"
LOCK = ".publish.lock"
CATALOGUE = "catalogue.json"
KEEP = 3
#: the current and the previous published version are never removed
MIN_KEEP = 2
STAMP = re.compile(r"^\d{8}T\d{12}Z$")
#: The steps of a publish, in order; each is durable before the next starts. The tests kill
#: a publish after each one (see _step_done).
STEPS = ("copied", "exported", "sealed", "flipped", "recorded", "pruned")


class PublishError(ConcordError):
    """Publishing was refused; the current serving version is unchanged."""


@dataclass
class Published:
    """What one publish wrote."""

    version: str
    database: Path
    parquet_dir: Path
    tables: dict[str, int] = field(default_factory=dict)  # table -> row count
    removed: list[Path] = field(default_factory=list)
    quality: str = "passed"
    #: the line saying the record was rebuilt from the version folders (recover_record)
    note: str | None = None


def build_columns(identity: dict[str, object]) -> dict[str, object]:
    """The columns of ``meta.publication`` that say which build a version was copied from:
    each key of :func:`concord_io.quality.build_identity` as ``build_<key>`` (the file's size
    and SHA-256, and its write-ahead log's), so that ``concord status`` can tell from the
    bytes whether the build database is still what is published."""
    return {f"build_{key}": value for key, value in identity.items()}


def _sql_value(value: object) -> str:
    """A value of ``meta.publication`` as SQL: text, a whole number, or a null text."""
    if value is None:
        return "cast(null as varchar)"
    if isinstance(value, int):
        return f"cast({value} as bigint)"
    return sql_literal(value)


def _step_done(step: str) -> None:
    """Called after each of STEPS; a no-op that the crash tests replace to kill the process."""


def read_descriptions(manifest: Path | None) -> dict[str, dict]:
    """Mart descriptions from dbt's manifest: {table: {"description", "columns": {col: desc},
    "not_null": [col], "primary_key": [col]}}, the last two from the contract's constraints
    (what a mart built as a view is published with).

    Only models in schema ``marts`` are read. A missing manifest gives no descriptions
    (the publish still works; the catalogue then says so with empty strings).
    """
    if manifest is None or not Path(manifest).is_file():
        return {}
    try:
        nodes = json.loads(Path(manifest).read_text(encoding="utf-8")).get("nodes", {})
    except (ValueError, UnicodeDecodeError) as error:
        raise PublishError(
            f"{manifest}: not a readable dbt manifest ({error})",
            hint="run dbt build (or dbt parse) again to rewrite it",
        ) from error
    out = {}
    for node in nodes.values():
        if node.get("resource_type") != "model" or node.get("schema") != SCHEMA:
            continue
        name = node.get("alias") or node["name"]
        columns = node.get("columns") or {}
        primary_key = [
            column
            for constraint in node.get("constraints") or []
            if constraint.get("type") == "primary_key"
            for column in constraint.get("columns") or []
        ] + [
            col
            for col, meta in columns.items()
            if any(c.get("type") == "primary_key" for c in meta.get("constraints") or [])
        ]
        out[name] = {
            # a versioned model's own name, where this table is its latest version
            "latest_of": node["name"]
            if node.get("version") is not None and node.get("version") == node.get("latest_version")
            else None,
            "description": (node.get("description") or "").strip(),
            "columns": {
                col: (meta.get("description") or "").strip() for col, meta in columns.items()
            },
            "not_null": [
                col
                for col, meta in columns.items()
                if any(c.get("type") == "not_null" for c in meta.get("constraints") or [])
            ],
            "primary_key": primary_key,
        }
    return out


def _view_ddl(con: duckdb.DuckDBPyConnection, name: str, table: str, contract: dict) -> str:
    """The table a mart built as a view (a fact over the one copy of the answers) is
    published as: its columns and types as the build has them, the contract's not-null
    columns and primary key (``contract`` from :func:`read_descriptions`), as dbt declares a
    table's."""
    columns = con.execute(
        "select column_name, data_type from information_schema.columns where table_catalog = "
        "'build' and table_schema = ? and table_name = ? order by ordinal_position",
        [SCHEMA, name],
    ).fetchall()
    not_null = set(contract.get("not_null") or [])
    parts = [
        f"{sql_identifier(column)} {data_type}{' not null' if column in not_null else ''}"
        for column, data_type in columns
    ]
    if contract.get("primary_key"):
        parts.append(f"primary key ({', '.join(map(sql_identifier, contract['primary_key']))})")
    return f"create table {table} ({', '.join(parts)})"


def _built_at(manifest: Path | None, database: Path) -> str:
    """When the marts were built: run_results.json beside the manifest, else the file time."""
    if manifest is not None:
        run_results = Path(manifest).with_name("run_results.json")
        for candidate in (run_results, Path(manifest)):
            if candidate.is_file():
                try:
                    meta = json.loads(candidate.read_text(encoding="utf-8")).get("metadata", {})
                except ValueError:
                    continue
                if meta.get("generated_at"):
                    return str(meta["generated_at"])
    mtime = datetime.fromtimestamp(database.stat().st_mtime, tz=UTC)
    return mtime.isoformat()


def _flip_symlink(link: Path, target: str) -> None:
    """Point ``link`` at ``target`` (relative) atomically: a temp symlink renamed over it."""
    temp = link.with_name(f".{link.name}.{os.getpid()}.tmp")
    if temp.is_symlink() or temp.exists():
        temp.unlink()
    os.symlink(target, temp)
    os.replace(temp, link)


def _check_no_wal(path: Path, why: str) -> None:
    wal = path.with_name(path.name + ".wal")
    if wal.exists():
        raise PublishError(
            f"{wal} exists: {why}",
            hint="a .wal beside a serving file would be replayed into it by the next process "
            "that opens it; remove it (after checking nothing writes there) and publish again",
        )


# --- the record of published versions --------------------------------------------------------


def read_record(serving_dir: Path) -> list[str]:
    """The published versions, oldest first, from ``<serving>/published.json`` ([] if none).

    The record is validated whole before anything acts on it (retention deletes what it
    does not name): a JSON object whose ``versions`` is a list of ``{"version": <stamp>}``,
    each stamp once, in publishing order."""
    path = Path(serving_dir) / RECORD
    if not path.exists() and not path.is_symlink():
        return []
    hint = (
        "nothing was changed; restore it from a backup, or rebuild it from "
        f"{Path(serving_dir) / VERSIONS} (one entry per published version folder, oldest first)"
    )
    if path.is_symlink() or not path.is_file():
        raise PublishError(f"{path}: the record of published versions is not a file", hint=hint)
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))["versions"]
        if not isinstance(entries, list) or not all(
            isinstance(entry, dict) and set(entry) == {"version"} for entry in entries
        ):
            raise TypeError('expected {"versions": [{"version": <stamp>}, ...]}')
        versions = [entry["version"] for entry in entries]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as error:
        raise PublishError(
            f"{path}: the record of published versions is unreadable ({error})", hint=hint
        ) from error
    bad = [v for v in versions if not (isinstance(v, str) and STAMP.match(v))]
    if bad:
        raise PublishError(
            f"{path}: the record names {printable(str(bad[0]))!r}, which is not a publish stamp",
            hint=hint,
        )
    repeated = sorted({v for v in versions if versions.count(v) > 1})
    if repeated:
        raise PublishError(f"{path}: the record names version {repeated[0]} twice", hint=hint)
    if versions != sorted(versions):
        raise PublishError(
            f"{path}: the record's versions are not in publishing order (oldest first)",
            hint=hint,
        )
    return versions


def version_folders(serving_dir: Path) -> list[str]:
    """The complete version folders present (a publish stamp, a real folder), oldest first."""
    versions = serving_dir / VERSIONS
    return sorted(
        p.name
        for p in (versions.iterdir() if versions.is_dir() else [])
        if STAMP.match(p.name) and p.is_dir() and not p.is_symlink()
    )


def _record_is_empty(serving_dir: Path) -> bool:
    """No record, an empty file, or one that names no version."""
    path = serving_dir / RECORD
    if not path.exists() and not path.is_symlink():
        return True
    if path.is_file() and not path.is_symlink() and not path.read_bytes().strip():
        return True
    return read_record(serving_dir) == []


def recover_record(serving_dir: Path) -> str | None:
    """Rebuild a missing or empty record from the version folders present, so that retention
    never deletes a version it cannot account for; the one line that says so, or None.

    Every version folder up to the one ``current`` points at is taken as published (a publish
    flips ``current`` to its own, newest stamp); a folder newer than ``current`` was never
    flipped to (a publish killed before its flip) and stays out, as the module docstring
    says. With no ``current`` link at all, every folder is kept: nothing says which were
    published. An unreadable record is refused by :func:`read_record`, as always."""
    serving_dir = Path(serving_dir)
    if not _record_is_empty(serving_dir):
        return None
    current = current_version(serving_dir)
    found = [v for v in version_folders(serving_dir) if current is None or v <= current]
    if not found:
        return None
    _write_record(serving_dir, found)
    return (
        f"{serving_dir / RECORD} was missing or empty: rebuilt from the {len(found)} version "
        f"folder(s) in {serving_dir / VERSIONS} ({found[0]} .. {found[-1]}), every one kept; "
        "retention applies from the next publish"
    )


def _write_record(serving_dir: Path, versions: list[str]) -> None:
    """Replace the record atomically (temp file, fsync, rename, fsync the folder)."""
    path = serving_dir / RECORD
    temp = serving_dir / f".{RECORD}.{os.getpid()}.tmp"
    body = {"versions": [{"version": v} for v in versions]}
    temp.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    folders.fsync(temp)
    os.replace(temp, path)
    folders.fsync(serving_dir)


def current_version(serving_dir: Path) -> str | None:
    """The version the ``current`` link points at, or None before the first publish."""
    link = Path(serving_dir) / CURRENT
    if not link.is_symlink():
        return None
    name = Path(os.readlink(link)).name
    return name if STAMP.match(name) else None


@contextmanager
def _publish_lock(serving_dir: Path) -> Iterator[None]:
    """Hold ``<serving>/.publish.lock`` for the whole publish; refuse if another holds it."""
    fd = warehouse_lock.open_lock_file(
        serving_dir / LOCK, error=PublishError, what="the publish lock", again="publish again"
    )
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = warehouse_lock.holder_of(fd)[:64] or "unknown"
            raise PublishError(
                f"{serving_dir}: another publish is running (pid {printable(holder)})",
                hint="wait for it to finish; the current serving version is unchanged",
            ) from None
        warehouse_lock.claim(fd, str(os.getpid()))
        yield
    finally:
        os.close(fd)  # releases the lock


# --- writing one version ---------------------------------------------------------------------


def _build_comments(con: duckdb.DuckDBPyConnection, name: str) -> dict:
    """The build's own comments of a mart that no model describes (``dq_test_failures``,
    written by an on-run-end hook), in the shape of :func:`read_descriptions`."""
    table = con.execute(
        "select comment from duckdb_tables() where database_name = 'build' "
        "and schema_name = ? and table_name = ?",
        [SCHEMA, name],
    ).fetchall()
    columns = con.execute(
        "select column_name, comment from duckdb_columns() where database_name = 'build' "
        "and schema_name = ? and table_name = ? and comment is not null",
        [SCHEMA, name],
    ).fetchall()
    return {
        "description": table[0][0] if table else None,
        "columns": dict(columns),
    }


def _copy_marts(
    database: Path, target: Path, descriptions: dict[str, dict], meta: dict[str, object]
) -> dict[str, int]:
    """Write every mart of ``database`` into the new file ``target``; returns row counts."""
    from concord_io.connect import build_lock_error, open_duckdb

    con = open_duckdb()
    try:
        try:
            con.execute(f"attach {sql_literal(str(database))} as build (read_only)")
        except duckdb.IOException as error:
            lock = build_lock_error(database, error)
            if lock is None:
                raise
            raise lock from error
        marts = [
            name
            for (name,) in con.execute(
                "select table_name from information_schema.tables "
                "where table_catalog = 'build' and table_schema = ? order by table_name",
                [SCHEMA],
            ).fetchall()
        ]
        if not marts:
            raise PublishError(
                f"{database}: schema {SCHEMA} has no tables; nothing to publish",
                hint="run dbt build first",
            )
        con.execute(
            f"attach {sql_literal(str(target))} as serving "
            f"(storage_version {sql_literal(SERVING_STORAGE_VERSION)})"
        )
        con.execute(f"create schema serving.{SCHEMA}")
        counts = {}
        # each mart is created from its build DDL (`create table … as select` would drop the
        # contract's primary keys and not-null columns), so that DuckDB, JDBC/ODBC and
        # SQLAlchemy readers see the keys; the DDL names the schema, not the catalog
        con.execute("use serving")
        for name in marts:
            table = f"serving.{SCHEMA}.{sql_identifier(name)}"
            ddl = con.execute(
                "select sql from duckdb_tables() where database_name = 'build' "
                "and schema_name = ? and table_name = ?",
                [SCHEMA, name],
            ).fetchone()
            # a view (the facts, over the one copy of the answers and items) is published as
            # the table it reads as, declared from its contract: its SQL names the build
            # file's catalog
            con.execute(
                ddl[0] if ddl else _view_ddl(con, name, table, descriptions.get(name) or {})
            )
            con.execute(f"insert into {table} select * from build.{SCHEMA}.{sql_identifier(name)}")
            described = descriptions.get(name) or _build_comments(con, name)
            if described.get("description"):
                con.execute(f"comment on table {table} is {sql_literal(described['description'])}")
            columns = [
                c
                for (c,) in con.execute(
                    "select column_name from information_schema.columns where table_catalog = "
                    "'serving' and table_schema = ? and table_name = ? order by ordinal_position",
                    [SCHEMA, name],
                ).fetchall()
            ]
            for column in columns:
                text = described.get("columns", {}).get(column)
                if text:
                    con.execute(
                        f"comment on column {table}.{sql_identifier(column)} is {sql_literal(text)}"
                    )
            counts[name] = con.execute(f"select count(*) from {table}").fetchone()[0]
        _latest_version_views(con, marts, descriptions)
        con.execute(f"create schema serving.{META_SCHEMA}")
        con.execute(
            f"create table serving.{META_SCHEMA}.publication as select "
            + ", ".join(f"{_sql_value(v)} as {sql_identifier(k)}" for k, v in meta.items())
        )
        con.execute(
            f"comment on table serving.{META_SCHEMA}.publication is "
            "'One row: which published version this file is, when its marts were built and "
            "when it was published, whether the quality checkpoint passed on that build, and "
            "which build file it was copied from (its size and SHA-256, and those of its "
            "write-ahead log, null without one).'"
        )
        con.execute("checkpoint serving")
        con.execute("use memory")
        con.execute("detach serving")
        con.execute("detach build")
    finally:
        con.close()
    return counts


def _latest_version_views(
    con: duckdb.DuckDBPyConnection, marts: list[str], descriptions: dict[str, dict]
) -> None:
    """Each versioned mart also under its unversioned name, at its latest version: a view
    (``marts.mcq_agreement_summary`` reads ``marts.mcq_agreement_summary_v2``), the name a BI
    tool's saved dataset keeps across versions. Not a table: exports and counts see each
    mart once."""
    for name in marts:
        latest_of = (descriptions.get(name) or {}).get("latest_of")
        if not latest_of or latest_of == name or latest_of in marts:
            continue
        view = f"serving.{SCHEMA}.{sql_identifier(latest_of)}"
        con.execute(f"create view {view} as select * from {SCHEMA}.{sql_identifier(name)}")
        con.execute(
            f"comment on view {view} is "
            + sql_literal(
                f"{latest_of} at its latest version, {name}: save this name in a BI tool, "
                "it follows each new version"
            )
        )


def _export_parquet(
    version_db: Path, out_dir: Path, counts: dict[str, int], meta: dict[str, object]
) -> None:
    """One Parquet file per mart and catalogue.json, read back from the new version file."""
    from concord_io.connect import open_duckdb

    out_dir.mkdir()
    con = open_duckdb(version_db, read_only=True)
    try:
        tables = []
        for (name,) in con.execute(
            # the tables: a view of a mart's latest version is that mart under another name
            "select table_name from information_schema.tables where table_schema = ? "
            "and table_type = 'BASE TABLE' order by table_name",
            [SCHEMA],
        ).fetchall():
            file = out_dir / f"{name}.parquet"
            con.execute(
                f"copy {SCHEMA}.{sql_identifier(name)} to {sql_literal(str(file))} "
                "(format parquet, compression zstd)"
            )
            folders.fsync(file)
            columns = con.execute(
                "select column_name, data_type, comment from duckdb_columns() "
                "where schema_name = ? and table_name = ? order by column_index",
                [SCHEMA, name],
            ).fetchall()
            (comment,) = con.execute(
                "select comment from duckdb_tables() where schema_name = ? and table_name = ?",
                [SCHEMA, name],
            ).fetchone()
            tables.append(
                {
                    "name": name,
                    "file": file.name,
                    "description": comment or "",
                    "row_count": counts[name],
                    "columns": [
                        {"name": c, "type": t, "description": d or ""} for c, t, d in columns
                    ],
                }
            )
    finally:
        con.close()
    catalogue = {**meta, "schema": SCHEMA, "tables": tables}
    path = out_dir / CATALOGUE
    path.write_text(json.dumps(catalogue, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    folders.fsync(path)
    folders.fsync(out_dir)


# --- retention -------------------------------------------------------------------------------


def _remove_tree(path: Path, versions: Path) -> None:
    """Rename to a hidden ``.removing`` name first, so a half-removed folder is never taken
    for a version, then delete it."""
    hidden = versions / f".{path.name}.removing"
    if hidden.exists():
        shutil.rmtree(hidden)
    os.rename(path, hidden)
    folders.fsync(versions)
    shutil.rmtree(hidden)


def prune(serving_dir: str | Path, keep: int = KEEP) -> list[Path]:
    """Apply retention to ``serving_dir`` (see the module docstring); returns what it removed.

    Must run under the publish lock (``publish`` calls it so): a folder that is being written
    by another publish would otherwise look like a leftover.
    """
    serving_dir = Path(serving_dir)
    versions = serving_dir / VERSIONS
    rebuilt = recover_record(serving_dir)
    published = read_record(serving_dir)
    current = current_version(serving_dir)
    if current is not None and current not in published:
        published.append(current)  # killed between the flip and the record
    kept = set(published if rebuilt else published[-keep:])
    if current is not None:
        kept.add(current)
        at = published.index(current)
        if at > 0:
            kept.add(published[at - 1])
    record = [v for v in published if v in kept and (versions / v).is_dir()]
    if record != read_record(serving_dir):
        _write_record(serving_dir, record)
    removed = []
    for path in sorted(versions.iterdir()) if versions.is_dir() else []:
        name = path.name
        leftover = name.endswith((".partial", ".partial.wal", ".removing")) or (
            name.startswith(".") and name.endswith(".tmp")
        )
        stale = STAMP.match(name) is not None and name not in kept
        if not (leftover or stale):
            continue  # a kept version, or something publish does not manage
        if path.is_dir() and not path.is_symlink():
            if stale:
                _remove_tree(path, versions)
            else:
                shutil.rmtree(path)
        else:
            path.unlink()
        removed.append(path)
    for temp in serving_dir.glob(".*.tmp"):  # symlinks and records of a killed publish
        temp.unlink()
    return removed


# --- publish ---------------------------------------------------------------------------------


def check_keep(keep: object) -> int:
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < MIN_KEEP:
        raise PublishError(
            f"--keep {keep!r}: must be a whole number of at least {MIN_KEEP}",
            hint="the current and the previous published version are always kept",
        )
    return keep


def check_not_in_serving(database: Path, serving_dir: Path) -> None:
    """The build database must never be a published file or sit in the serving folder."""
    resolved = database.resolve()
    serving = serving_dir.resolve()
    if resolved == serving or serving in resolved.parents:
        raise PublishError(
            f"{database}: the build database is inside the serving folder {serving_dir}",
            hint="set CONCORD_DB_PATH to a file outside it (the default is "
            "warehouse/concord.duckdb); readers use the serving file, builds never do",
        )


def _disk_error(error: BaseException, where: Path) -> ConcordError | None:
    return disk_error(
        error,
        where,
        hint="free space or choose a writable --serving-dir; the current serving version "
        "is unchanged",
    )


def publish(
    database: str | Path,
    serving_dir: str | Path,
    manifest: str | Path | None = None,
    keep: int = KEEP,
    now: datetime | None = None,
    *,
    skip_quality_gate: bool = False,
    told: Callable[[], bool] | None = None,
) -> Published | None:
    """Publish the marts of ``database`` into ``serving_dir``; see the module docstring.

    ``told``: called once the version is written, before the quality gate is checked and the
    version sealed; False removes the version and publishes nothing (returns None). Without
    it the gate is checked first.

    Raises PublishError (and changes nothing that readers see) when the build database has
    no marts or no passing quality record for this exact file (unless
    ``skip_quality_gate``), sits inside the serving folder, is held by a writer, when a .wal
    would be left beside a serving file, when another publish is running, when the disk is
    full or read-only, or when the serving folder holds something publish does not manage
    where its symlinks go.
    """
    from concord_io.quality import build_identity, check_quality_record

    database = Path(database)
    serving_dir = Path(serving_dir)
    manifest = Path(manifest) if manifest is not None else None
    keep = check_keep(keep)
    if not database.is_file():
        raise PublishError(
            f"{database}: build database not found", hint="run dbt build (or make build) first"
        )
    check_not_in_serving(database, serving_dir)
    # the bytes are read once: the quality gate checks them, the version records them
    identity = build_identity(database)

    def gate() -> str:
        return "skipped" if skip_quality_gate else check_quality_record(database, identity)

    quality = gate() if told is None else "skipped" if skip_quality_gate else "passed"

    def before_sealing() -> bool:
        if told is None:
            return True
        if not told():
            return False
        gate()  # the checkpoint has run meanwhile: its record is checked now
        return True

    try:
        serving_dir.mkdir(parents=True, exist_ok=True)
        with _publish_lock(serving_dir):
            return _publish_locked(
                database, serving_dir, manifest, keep, now, quality, build_columns(identity),
                before_sealing,
            )  # fmt: skip
    except OSError as error:
        disk = _disk_error(error, serving_dir)
        if disk is None:
            raise
        raise disk from error
    except duckdb.IOException as error:
        disk = _disk_error(error, serving_dir)
        if disk is None:
            raise
        raise disk from error


def _check_links(serving_dir: Path) -> None:
    """The serving folder's reader paths are the symlinks publish manages, and nothing
    opened a published file for writing (a ``.wal`` beside it)."""
    for link in (CURRENT_DB, CURRENT_PARQUET, CURRENT):
        path = serving_dir / link
        if path.exists() and not path.is_symlink():
            raise PublishError(
                f"{path} is a real file or folder, not the symlink publish manages",
                hint="move it out of the serving folder and publish again",
            )
        _check_no_wal(path, "something opened the serving file for writing")
    current = current_version(serving_dir)
    if current is not None:
        _check_no_wal(
            serving_dir / VERSIONS / current / CURRENT_DB, "something opened it for writing"
        )


def _publish_locked(
    database: Path,
    serving_dir: Path,
    manifest: Path | None,
    keep: int,
    now: datetime | None,
    quality: str,
    build: dict[str, object],
    before_sealing: Callable[[], bool],
) -> Published | None:
    versions = serving_dir / VERSIONS
    versions.mkdir(exist_ok=True)
    _check_links(serving_dir)
    # a record lost or emptied is rebuilt first, its versions all kept by this publish
    rebuilt = recover_record(serving_dir)
    if rebuilt is not None:
        keep = max(keep, len(read_record(serving_dir)) + 1)
    prune(serving_dir, keep)  # leftovers of a killed publish go first, before new writes

    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S%fZ")
    final = versions / stamp
    partial = versions / f"{stamp}.partial"
    if final.exists() or stamp in read_record(serving_dir):
        raise PublishError(f"{final}: version {stamp} already exists")
    descriptions = read_descriptions(manifest)
    meta = {
        "version": stamp,
        "built_at": _built_at(manifest, database),
        "published_at": datetime.now(UTC).isoformat(),
        "storage_version": SERVING_STORAGE_VERSION,
        "duckdb_version": duckdb.__version__,
        "quality": quality,
        **build,
    }
    partial.mkdir()
    try:
        counts = _copy_marts(database, partial / CURRENT_DB, descriptions, meta)
        _check_no_wal(partial / CURRENT_DB, "the new version was not fully checkpointed")
        folders.fsync(partial / CURRENT_DB)
        _step_done("copied")
        _export_parquet(partial / CURRENT_DB, partial / CURRENT_PARQUET, counts, meta)
        _check_no_wal(partial / CURRENT_DB, "reading the new version left a write-ahead log")
        folders.fsync(partial)
        _step_done("exported")
        if not before_sealing():
            shutil.rmtree(partial)
            return None
        os.rename(partial, final)
        folders.fsync(versions)
        _step_done("sealed")
    except BaseException as error:
        # the first error is the one reported; a failed cleanup is only noted on it
        try:
            if partial.exists():
                shutil.rmtree(partial)
            if final.exists() and current_version(serving_dir) != stamp:
                shutil.rmtree(final)
        except OSError as cleanup:
            error.add_note(f"cleanup after the failure also failed: {cleanup}")
        raise

    _flip_symlink(serving_dir / CURRENT, f"{VERSIONS}/{stamp}")
    # the reader paths never change: made once (first publish), pointing through `current`
    for link in (CURRENT_DB, CURRENT_PARQUET):
        path = serving_dir / link
        if not path.is_symlink() or os.readlink(path) != f"{CURRENT}/{link}":
            _flip_symlink(path, f"{CURRENT}/{link}")
    folders.fsync(serving_dir)
    _step_done("flipped")
    record = read_record(serving_dir)
    _write_record(serving_dir, [*record, stamp])
    _step_done("recorded")
    removed = prune(serving_dir, keep)
    _step_done("pruned")
    return Published(
        stamp, final / CURRENT_DB, final / CURRENT_PARQUET, counts, removed, quality, rebuilt
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", required=True, help="the build database (read only)")
    parser.add_argument("--serving-dir", required=True, help="e.g. warehouse/serving")
    parser.add_argument("--manifest", default="target/manifest.json", help="dbt's manifest")
    parser.add_argument(
        "--keep", type=int, default=KEEP, help=f"published versions to keep (default {KEEP})"
    )
    parser.add_argument(
        "--skip-quality-gate",
        action="store_true",
        help="publish although the quality checkpoint has not passed on this build file",
    )
    parser.add_argument(
        "--when-told",
        action="store_true",
        help=f"write the version, then seal it only when a line '{GO}' comes on stdin",
    )
    args = parser.parse_args(argv)
    check_keep(args.keep)
    told = None
    if args.when_told:
        # ended by the build (its checkpoint failed): the version written so far is removed
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))

        def told() -> bool:
            return sys.stdin.readline().strip() == GO

    if args.skip_quality_gate:
        print(
            "WARNING: --skip-quality-gate: publishing marts that the quality checkpoint has "
            "not passed; the version is marked quality=skipped in meta.publication",
            file=sys.stderr,
        )
    # the warehouse lock: a build in progress finishes before its file is published
    with warehouse_lock.held(paths.landing_dir(), "publish", error=ConcordError):
        result = publish(
            args.database,
            args.serving_dir,
            args.manifest,
            args.keep,
            skip_quality_gate=args.skip_quality_gate,
            told=told,
        )
    if result is None:
        return 0
    serving = Path(args.serving_dir)
    if result.note:
        print(f"note: {result.note}")
    print(
        f"published {len(result.tables)} marts ({sum(result.tables.values())} rows) as version "
        f"{result.version}:\n  {serving / CURRENT_DB} -> {result.database}\n"
        f"  {serving / CURRENT_PARQUET} -> {result.parquet_dir} (+ {CATALOGUE})"
        + "".join(f"\n  removed {printable(old.name)}" for old in result.removed)
    )
    return 0


if __name__ == "__main__":
    run_main(main)
