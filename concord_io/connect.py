"""The documented reader connection to the published serving file, locked down.

A reader opens the serving file read-only (so it never takes the writer's lock and never
leaves a .wal), with extension auto-install and auto-loading off, access to every other
file, database and extension refused, and the configuration locked so that none of this
can be undone from SQL. The order matters when the settings are given as SQL statements:
the file must be opened before external access is switched off, and ``lock_configuration``
comes last (after it, no SET is accepted). Given as ``config`` to ``duckdb.connect`` (as
below) DuckDB applies them while opening the file, with the lock taking effect last.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from concord_common.settings import value
from concord_io.errors import ConcordError, printable

#: Reader settings, in the order they must be applied as SQL (``SET name = value``).
READER_SETTINGS: dict[str, object] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "enable_external_access": False,
    "lock_configuration": True,
}

#: The same settings as SQL, for tools that take an init script instead of a config dict.
READER_INIT_SQL = "\n".join(
    f"set {name} = {str(value).lower()};" for name, value in READER_SETTINGS.items()
)


def apply_build_settings(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """The DuckDB settings of every connection Concord opens to build, check, publish or
    export (dbt's through concord_io.dbt_plugin): the memory limit of CONCORD_MEMORY_LIMIT,
    beyond which DuckDB spills to disk instead of growing. Set with SET, not as connect
    config: DuckDB refuses a second connection to a file with another config in one process
    (dbt's and a reader's, in a notebook or a test)."""
    limit = value("CONCORD_MEMORY_LIMIT")
    try:
        con.execute(f"set memory_limit = '{limit.replace(chr(39), chr(39) * 2)}'")
    except duckdb.Error as error:
        con.close()
        raise ConcordError(
            f"CONCORD_MEMORY_LIMIT={printable(limit)}: DuckDB refuses it as a memory limit",
            hint="give a size such as 700MB or 8GB",
        ) from error
    return con


def open_duckdb(path: str | Path = ":memory:", *, read_only: bool = False):
    """A DuckDB connection with the build settings (:func:`apply_build_settings`)."""
    return apply_build_settings(duckdb.connect(str(path), read_only=read_only))


def sqlalchemy_url(path: str | Path) -> str:
    """The SQLAlchemy / duckdb-engine URL of the locked-down reader (what Superset takes)."""
    query = "&".join(
        ["access_mode=read_only"]
        + [f"{name}={str(value).lower()}" for name, value in READER_SETTINGS.items()]
    )
    return f"duckdb:///{Path(path).absolute()}?{query}"


class ServingNotFoundError(ConcordError, FileNotFoundError):
    """Nothing has been published at that path yet."""


def connect_serving(path: str | Path) -> duckdb.DuckDBPyConnection:
    """Open the serving file (the ``concord.duckdb`` symlink or a version) as a locked reader.

    The symlink is resolved first, so a connection made after a publish opens the new
    version even while this process still holds one to the old. Raises
    ServingNotFoundError (a FileNotFoundError and a ConcordError) when nothing has been
    published there yet, rather than letting DuckDB create an empty database.
    """
    path = Path(path)
    if not path.exists():
        raise ServingNotFoundError(
            f"{path}: no serving file", hint="run `make build` (or publish) to publish one"
        )
    return duckdb.connect(str(path.resolve()), read_only=True, config=dict(READER_SETTINGS))


_LOCK_HOLDER = re.compile(r"Conflicting lock is held in (?P<program>.+?) \(PID (?P<pid>\d+)\)")


def build_lock_error(database: str | Path, error: Exception) -> ConcordError | None:
    """DuckDB's "Could not set lock" on the build file as a ConcordError naming the process
    that holds it (DuckDB names it), or None for any other error."""
    text = str(error)
    if "Could not set lock" not in text:
        return None
    holder = _LOCK_HOLDER.search(text)
    who = (
        f"process {holder['pid']} ({printable(Path(holder['program']).name)})"
        if holder
        else "another process"
    )
    return ConcordError(
        f"{database}: the build file is held by {who}: a build is running, or a reader has it open",
        hint="wait for the build to finish, or close that reader; readers belong on the "
        "serving file (warehouse/serving/concord.duckdb, see concord_io.connect), never on "
        "the build file",
    )


def connect_build(database: str | Path, *, read_only: bool = True) -> duckdb.DuckDBPyConnection:
    """Open the build database; a missing file or a held lock is a ConcordError."""
    database = Path(database)
    if read_only and not database.is_file():
        raise ConcordError(f"{database}: no build database", hint="run dbt build first")
    try:
        return open_duckdb(database, read_only=read_only)
    except duckdb.IOException as error:
        lock = build_lock_error(database, error)
        if lock is None:
            raise
        raise lock from error
