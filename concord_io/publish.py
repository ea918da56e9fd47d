"""Publish the marts into a versioned, read-only serving file that BI tools can hold open.

DuckDB allows one writer or many readers of a file, never both, so readers never open the
build database. After a successful build every table (or view) in schema ``marts`` is
copied into a new file ``<serving>/versions/concord-<UTC timestamp>.duckdb`` written with
storage version v1.4.0 (so the DuckDB 1.4 that BI drivers bundle can open it), with the
table and column descriptions of ``target/manifest.json`` as COMMENTs, checkpointed,
closed, fsynced and only then made current by atomically replacing the symlink
``<serving>/concord.duckdb``. The same marts go to one Parquet file each, with
``catalogue.json``, in ``versions/parquet-<timestamp>/``, made current through the
symlink ``<serving>/parquet``. The last ``keep`` versions of each are kept.

A reader holding an old version keeps its consistent view (the file is never written
again; on POSIX it survives its removal until closed) and sees the new one when it
reconnects. Anything that goes wrong before the symlink flips leaves the current version
as it was, and removes the partial files.

    python -m concord_io.publish --database warehouse/concord.duckdb \\
        --serving-dir warehouse/serving --manifest target/manifest.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb

SCHEMA = "marts"
META_SCHEMA = "meta"
SERVING_STORAGE_VERSION = "v1.4.0"
CURRENT_DB = "concord.duckdb"
CURRENT_PARQUET = "parquet"
VERSIONS = "versions"
CATALOGUE = "catalogue.json"
KEEP = 3


class PublishError(RuntimeError):
    """Publishing was refused; the current serving version is unchanged."""


@dataclass
class Published:
    """What one publish wrote."""

    version: str
    database: Path
    parquet_dir: Path
    tables: dict[str, int] = field(default_factory=dict)  # table -> row count
    removed: list[Path] = field(default_factory=list)


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def read_descriptions(manifest: Path | None) -> dict[str, dict]:
    """Mart descriptions from dbt's manifest: {table: {"description", "columns": {col: desc}}}.

    Only models in schema ``marts`` are read. A missing manifest gives no descriptions
    (the publish still works; the catalogue then says so with empty strings).
    """
    if manifest is None or not Path(manifest).is_file():
        return {}
    nodes = json.loads(Path(manifest).read_text(encoding="utf-8")).get("nodes", {})
    out = {}
    for node in nodes.values():
        if node.get("resource_type") != "model" or node.get("schema") != SCHEMA:
            continue
        name = node.get("alias") or node["name"]
        out[name] = {
            "description": (node.get("description") or "").strip(),
            "columns": {
                col: (meta.get("description") or "").strip()
                for col, meta in (node.get("columns") or {}).items()
            },
        }
    return out


def _built_at(manifest: Path | None, database: Path) -> str:
    """When the marts were built: run_results.json beside the manifest, else the file time."""
    if manifest is not None:
        run_results = Path(manifest).with_name("run_results.json")
        for candidate in (run_results, Path(manifest)):
            if candidate.is_file():
                meta = json.loads(candidate.read_text(encoding="utf-8")).get("metadata", {})
                if meta.get("generated_at"):
                    return str(meta["generated_at"])
    mtime = datetime.fromtimestamp(database.stat().st_mtime, tz=UTC)
    return mtime.isoformat()


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
            f"{wal} exists: {why}. A .wal beside a serving file would be replayed into it by "
            "the next process that opens it; remove it (after checking nothing writes there) "
            "and publish again"
        )


def _copy_marts(
    database: Path, target: Path, descriptions: dict[str, dict], meta: dict[str, str]
) -> dict[str, int]:
    """Write every mart of ``database`` into the new file ``target``; returns row counts."""
    con = duckdb.connect()
    try:
        con.execute(f"attach {_literal(str(database))} as build (read_only)")
        marts = [
            name
            for (name,) in con.execute(
                "select table_name from information_schema.tables "
                "where table_catalog = 'build' and table_schema = ? order by table_name",
                [SCHEMA],
            ).fetchall()
        ]
        if not marts:
            raise PublishError(f"{database}: schema {SCHEMA} has no tables; nothing to publish")
        con.execute(
            f"attach {_literal(str(target))} as serving "
            f"(storage_version {_literal(SERVING_STORAGE_VERSION)})"
        )
        con.execute(f"create schema serving.{SCHEMA}")
        counts = {}
        for name in marts:
            table = f"serving.{SCHEMA}.{_quote(name)}"
            con.execute(f"create table {table} as select * from build.{SCHEMA}.{_quote(name)}")
            described = descriptions.get(name, {})
            if described.get("description"):
                con.execute(f"comment on table {table} is {_literal(described['description'])}")
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
                    con.execute(f"comment on column {table}.{_quote(column)} is {_literal(text)}")
            counts[name] = con.execute(f"select count(*) from {table}").fetchone()[0]
        con.execute(f"create schema serving.{META_SCHEMA}")
        con.execute(
            f"create table serving.{META_SCHEMA}.publication as select "
            + ", ".join(f"{_literal(v)} as {_quote(k)}" for k, v in meta.items())
        )
        con.execute(
            f"comment on table serving.{META_SCHEMA}.publication is "
            "'One row: which published version this file is, when its marts were built and "
            "when it was published.'"
        )
        con.execute("checkpoint serving")
        con.execute("detach serving")
        con.execute("detach build")
    finally:
        con.close()
    return counts


def _export_parquet(
    version_db: Path, out_dir: Path, counts: dict[str, int], meta: dict[str, str]
) -> None:
    """One Parquet file per mart and catalogue.json, read back from the new version file."""
    out_dir.mkdir(parents=True)
    con = duckdb.connect(str(version_db), read_only=True)
    try:
        tables = []
        for (name,) in con.execute(
            "select table_name from information_schema.tables where table_schema = ? "
            "order by table_name",
            [SCHEMA],
        ).fetchall():
            file = out_dir / f"{name}.parquet"
            con.execute(
                f"copy {SCHEMA}.{_quote(name)} to {_literal(str(file))} "
                "(format parquet, compression zstd)"
            )
            _fsync_file(file)
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
    _fsync_file(path)
    _fsync_dir(out_dir)


def _prune(versions: Path, keep: int, current: set[str]) -> list[Path]:
    """Remove all but the newest ``keep`` versions of each kind (never a current one)."""
    removed = []
    for pattern in ("concord-*.duckdb", "parquet-*"):
        found = sorted(p for p in versions.glob(pattern) if not p.name.endswith(".partial"))
        for old in found[:-keep]:  # keep >= 1, checked by publish()
            if old.name in current:
                continue
            if old.is_dir():
                shutil.rmtree(old)
            else:
                old.unlink()
            removed.append(old)
    return removed


def publish(
    database: str | Path,
    serving_dir: str | Path,
    manifest: str | Path | None = None,
    keep: int = KEEP,
    now: datetime | None = None,
) -> Published:
    """Publish the marts of ``database`` into ``serving_dir``; see the module docstring.

    Raises PublishError (and changes nothing that readers see) when the build database has
    no marts, when a .wal would be left beside a serving file, or when the serving folder
    holds something publish does not manage where its symlinks go.
    """
    database = Path(database)
    serving_dir = Path(serving_dir)
    manifest = Path(manifest) if manifest is not None else None
    if keep < 1:
        raise ValueError(f"keep must be at least 1, got {keep}")
    if not database.is_file():
        raise PublishError(f"{database}: build database not found (run dbt build first)")
    versions = serving_dir / VERSIONS
    versions.mkdir(parents=True, exist_ok=True)
    current_link = serving_dir / CURRENT_DB
    _check_no_wal(current_link, "something opened the serving file for writing")
    for link in (current_link, serving_dir / CURRENT_PARQUET):
        if link.exists() and not link.is_symlink():
            raise PublishError(f"{link} is a real file or folder, not the symlink publish manages")

    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S%fZ")
    version_db = versions / f"concord-{stamp}.duckdb"
    parquet_dir = versions / f"parquet-{stamp}"
    if version_db.exists() or parquet_dir.exists():
        raise PublishError(f"{version_db}: version {stamp} already exists")
    partial_db = versions / f"concord-{stamp}.duckdb.partial"
    partial_parquet = versions / f"parquet-{stamp}.partial"
    descriptions = read_descriptions(manifest)
    meta = {
        "version": stamp,
        "built_at": _built_at(manifest, database),
        "published_at": datetime.now(UTC).isoformat(),
        "storage_version": SERVING_STORAGE_VERSION,
        "duckdb_version": duckdb.__version__,
    }
    try:
        counts = _copy_marts(database, partial_db, descriptions, meta)
        _check_no_wal(partial_db, "the new version was not fully checkpointed")
        _fsync_file(partial_db)
        os.replace(partial_db, version_db)
        _fsync_dir(versions)
        _export_parquet(version_db, partial_parquet, counts, meta)
        _check_no_wal(version_db, "reading the new version left a write-ahead log")
        os.replace(partial_parquet, parquet_dir)
        _fsync_dir(versions)
    except BaseException:
        for leftover in (partial_db, partial_db.with_name(partial_db.name + ".wal"), version_db):
            leftover.unlink(missing_ok=True)
        shutil.rmtree(partial_parquet, ignore_errors=True)
        shutil.rmtree(parquet_dir, ignore_errors=True)
        raise

    _flip_symlink(current_link, f"{VERSIONS}/{version_db.name}")
    _flip_symlink(serving_dir / CURRENT_PARQUET, f"{VERSIONS}/{parquet_dir.name}")
    _fsync_dir(serving_dir)
    removed = _prune(versions, keep, {version_db.name, parquet_dir.name})
    return Published(stamp, version_db, parquet_dir, counts, removed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", required=True, help="the build database (read only)")
    parser.add_argument("--serving-dir", required=True, help="e.g. warehouse/serving")
    parser.add_argument("--manifest", default="target/manifest.json", help="dbt's manifest")
    parser.add_argument("--keep", type=int, default=KEEP, help="versions to keep (default 3)")
    args = parser.parse_args(argv)
    try:
        result = publish(args.database, args.serving_dir, args.manifest, args.keep)
    except PublishError as exc:
        print(f"publish refused: {exc}", file=sys.stderr)
        return 1
    serving = Path(args.serving_dir)
    print(
        f"published {len(result.tables)} marts ({sum(result.tables.values())} rows) as version "
        f"{result.version}:\n  {serving / CURRENT_DB} -> {result.database}\n"
        f"  {serving / CURRENT_PARQUET} -> {result.parquet_dir} (+ {CATALOGUE})"
        + "".join(f"\n  removed old version {old.name}" for old in result.removed)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
