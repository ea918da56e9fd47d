"""Where Concord keeps its files: the project root and every default path, declared once.

The project root is the folder the command runs in (:mod:`concord_common.project_dir`:
``--project-dir``, ``DBT_PROJECT_DIR``, or the folder holding ``dbt_project.yml`` at or above
the working directory), never the package's install location. Environment variables
(declared in :mod:`concord_common.settings`) override the defaults, relative values taken
from the project root as dbt reads them: ``CONCORD_DB_PATH`` the
build database, ``CONCORD_LANDING_DIR`` the landing folder. Everything else sits beside the
build database.
"""

from __future__ import annotations

from pathlib import Path

import concord_common
from concord_common import project_dir
from concord_common.settings import SETTINGS, value
from concord_io.errors import ConcordError

DEFAULT_DB_PATH = SETTINGS["CONCORD_DB_PATH"].default


def project_root(explicit: Path | str | None = None) -> Path:
    """The Concord project this command works on (:func:`concord_common.project_dir.
    project_root`), refused in one line where there is none."""
    return project_dir.project_root(explicit, error=ConcordError)


def _from_env(variable: str, root: Path | None = None) -> Path:
    path = Path(value(variable))
    return path if path.is_absolute() else (root or project_root()) / path


#: Spark's build mirrored for the checks, publish and the report (concord_io.spark.mirror),
#: beside the build database.
SPARK_MIRROR = "concord_spark.duckdb"


def spark_dir() -> Path:
    """Spark's warehouse folder (``CONCORD_SPARK_DIR``: ``<schema>.db/<table>/`` Parquet and
    the catalogue's metastore), as the spark target writes it."""
    return _from_env("CONCORD_SPARK_DIR")


def build_db_path() -> Path:
    """The build database (``CONCORD_DB_PATH``), checked to be a file path
    (:func:`check_build_db_path`): every command refuses ``/dev/null`` before it writes a
    log, a report or a serving folder beside it."""
    check_build_db_path(value("CONCORD_DB_PATH"))  # as given: ':memory:', '~'
    return check_build_db_path(_from_env("CONCORD_DB_PATH"))  # as resolved: a device


def warehouse_dir() -> Path:
    """The folder of the build database: serving, report and quality live under it."""
    return build_db_path().parent


def serving_dir() -> Path:
    return warehouse_dir() / "serving"


def report_dir() -> Path:
    return warehouse_dir() / "report"


def quality_dir() -> Path:
    return warehouse_dir() / "quality"


def landing_dir(root: Path | None = None) -> Path:
    """The landing folder (:func:`concord_common.project_dir.landing_dir`): the probe's runs
    and the cross-lingual study's inputs as Parquet (docs/landing.md); a relative value is
    taken from ``root``, the project folder (a copy of the project has its own)."""
    return project_dir.landing_dir(root or project_root(), error=ConcordError)


def inside(folder: Path | str, target: Path | str, *, what: str = "path") -> Path:
    """``folder / target`` resolved, refused unless it stays inside ``folder``
    (:func:`concord_common.inside`): every writer calls this before it writes."""
    return concord_common.inside(folder, target, what=what, error=ConcordError)


#: Files that only a serving folder holds (concord_io.serving.publish writes them).
SERVING_MARKERS = ("published.json", ".publish.lock")


def serving_folder_of(path: Path | str) -> Path | None:
    """The serving folder that ``path`` (resolved, symlinks followed) is or lies in, or None."""
    resolved = Path(path).resolve()
    for folder in (resolved, *resolved.parents):
        if any((folder / marker).exists() for marker in SERVING_MARKERS):
            return folder
    return None


def _not_home_relative(path: Path | str, label: str) -> str:
    return project_dir.not_home_relative(path, label, error=ConcordError)


def is_duckdb_file(path: Path) -> bool:
    """A DuckDB database file starts with a checksum and the magic bytes ``DUCK``."""
    with open(path, "rb") as f:
        return f.read(12)[8:12] == b"DUCK"


def check_build_db_path(path: Path | str, *, variable: str = "CONCORD_DB_PATH") -> Path:
    """``path`` as a file path, refused when it is not one: ``:memory:`` or a remote
    database keeps nothing for publish and the report, and no shell expanded a ``~``."""
    text = str(path).strip()
    if text in ("", ":memory:") or ":" in text.replace("\\", "/").split("/")[0]:
        raise ConcordError(
            f"{variable}={text}: the build database must be a file path",
            hint="an in-memory or remote database keeps nothing for publish and the report; "
            f"unset {variable} (default {DEFAULT_DB_PATH}) or name a .duckdb file",
        )
    path = Path(_not_home_relative(text, variable + "="))
    if path.exists() and not path.is_file() and not path.is_dir():
        # a device (/dev/null), a FIFO or a socket: DuckDB cannot keep a database there, and
        # the folder beside it (logs, serving, report) is no place to write
        raise ConcordError(
            f"{variable}={text}: is a device or a pipe, not a database file",
            hint=f"unset {variable} (default {DEFAULT_DB_PATH}) or name a .duckdb file",
        )
    return path


def prepare_build_db(path: Path | str, *, variable: str = "CONCORD_DB_PATH") -> Path:
    """Check the build database path before anything opens it, and create its folder.

    Refused: a path inside a serving folder (the published file itself, through its symlink,
    or a new file beside it): a build would write into the version readers hold. The
    folder is created, so a fresh clone builds with plain ``dbt build``.
    """
    path = check_build_db_path(path, variable=variable)
    if path.is_dir():
        raise ConcordError(
            f"{variable}={path}: is a folder, not a database file",
            hint=f"name a file in it, for example {path / 'concord.duckdb'}",
        )
    if path.is_file() and path.stat().st_size > 0 and not is_duckdb_file(path):
        raise ConcordError(
            f"{variable}={path}: is not a DuckDB database (a build would overwrite or refuse it)",
            hint="point it at a new file or an existing Concord build",
        )
    serving = serving_folder_of(path)
    if serving is not None:
        raise ConcordError(
            f"{variable}={path}: the build database points into the serving folder {serving}",
            hint="builds write their file and readers hold the published ones: set "
            f"{variable} to a file outside it (default {DEFAULT_DB_PATH})",
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConcordError(
            f"{variable}={path}: cannot create its folder {path.parent} ({error.strerror})",
            hint=f"set {variable} to a file in a writable folder",
        ) from error
    return path


def output_folder(path: Path | str, *, flag: str = "--out") -> Path:
    """A folder a command writes its files into (``flag`` names where it came from), checked
    before anything is written: never a serving folder or inside one (published versions
    are immutable), never an existing file."""
    path = Path(_not_home_relative(path, flag + " "))
    serving = serving_folder_of(path)
    if serving is not None:
        raise ConcordError(
            f"{flag} {path}: lies in the serving folder {serving}; published versions are "
            "never written again",
            hint=f"choose a folder outside {serving} (the default is exports/ beside the "
            "build database)",
        )
    if path.exists() and not path.is_dir():
        raise ConcordError(f"{flag} {path}: is a file, not a folder", hint="name a folder")
    return path
