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

from pathlib import Path

import duckdb

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


def sqlalchemy_url(path: str | Path) -> str:
    """The SQLAlchemy / duckdb-engine URL of the locked-down reader (what Superset takes)."""
    query = "&".join(
        ["access_mode=read_only"]
        + [f"{name}={str(value).lower()}" for name, value in READER_SETTINGS.items()]
    )
    return f"duckdb:///{Path(path).absolute()}?{query}"


def connect_serving(path: str | Path) -> duckdb.DuckDBPyConnection:
    """Open the serving file (the ``concord.duckdb`` symlink or a version) as a locked reader.

    The symlink is resolved first, so a connection made after a publish opens the new
    version even while this process still holds one to the old. Raises FileNotFoundError
    when nothing has been published there yet, rather than letting DuckDB create an empty
    database.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no serving file (run `make build` to publish one)")
    return duckdb.connect(str(path.resolve()), read_only=True, config=dict(READER_SETTINGS))
