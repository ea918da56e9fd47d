"""A dbt-duckdb plugin (profiles.yml, target dev) that runs once before dbt opens the build
database. It checks the database: the path (see :func:`concord_io.paths.prepare_build_db`:
never inside a serving folder; its folder is created, so a fresh clone builds with plain
``dbt build``) and the file's lock, so that a build already running, or a reader holding the
build file, is named with its process id instead of DuckDB's bare lock error. It gives dbt's
connection the settings of every Concord connection
(:func:`concord_io.connect.apply_build_settings`: the memory limit). And for ``dbt build``
and ``dbt run`` it lands the inputs first (:func:`concord_io.landing.land`, docs/landing.md),
which the staging models read: the dbt project folder's seed files and the cross-lingual
study's registered files, into the landing folder (the var ``landing_dir`` where the call
gives one, else ``CONCORD_LANDING_DIR``, relative to the project), with the vars the call
was given (``--vars``). Bad input stops dbt with the reader's one line."""

from __future__ import annotations

from pathlib import Path

import duckdb
from dbt.adapters.duckdb.plugins import BasePlugin
from dbt.adapters.events.logging import AdapterLogger

from concord_common import warehouse_lock
from concord_common.project_dir import checked_landing_value
from concord_common.settings import value
from concord_io.build_context import CONTEXT_VARIABLE
from concord_io.connect import apply_build_settings, build_lock_error
from concord_io.errors import ConcordError
from concord_io.paths import check_build_db_path, landing_dir, prepare_build_db

#: The dbt commands that build models, and so read the landing.
LANDING_COMMANDS = ("build", "run")

logger = AdapterLogger("concord")


def _project_dir() -> Path:
    """The dbt project folder of the call in progress (--project-dir, else the working
    directory): relative paths in settings are taken from it, whatever the working
    directory."""
    from dbt.flags import get_flags

    return Path(getattr(get_flags(), "PROJECT_DIR", None) or Path.cwd()).resolve()


def _hold_and_land() -> str:
    """For a dbt call that builds models (its command): hold the warehouse lock until the
    call's process ends (the models read the landing from the first node to the last;
    :mod:`concord_common.warehouse_lock`), then land the seed files and the cross-lingual
    study as the call needs (its vars). The build's context
    (:func:`concord_io.build_context.build_context`), '' for a call that builds nothing."""
    from dbt.flags import get_flags

    from concord_common.project_dir import project_vars
    from concord_io.build_context import build_context
    from concord_io.landing.engine import checked_landing_folder

    flags = get_flags()
    which = getattr(flags, "WHICH", None)
    if which not in LANDING_COMMANDS:
        return ""
    project = _project_dir()
    variables = dict(getattr(flags, "VARS", None) or {})
    given = variables.get("landing_dir")
    if isinstance(given, str) and given.strip():
        landing = Path(checked_landing_value(given, "var landing_dir = ", error=ConcordError))
        landing = landing if landing.is_absolute() else project / landing
    else:
        landing = landing_dir(project)
    landing = checked_landing_folder(landing, project, project_vars(project, variables))
    warehouse_lock.acquire(landing, f"dbt {which}", error=ConcordError)  # given back at exit
    if value("CONCORD_LANDED") != "1":  # else `concord build` landed a moment before
        _land(project, landing, variables)
    # concord build's dbt stage narrowed the context to what the incremental models are
    # made from (concord_io.node_state): a plain dbt build takes the whole project's
    return value("CONCORD_BUILD_CONTEXT") or build_context(project, landing, variables)


def _land(project: Path, landing: Path, variables: dict) -> None:
    from concord_io.landing import land

    report = land(project, landing, variables)
    changed = [o for o in report.outcomes if o.status != "unchanged"]
    logger.info(
        f"concord landing ({landing}): {len(report.outcomes) - len(changed)} folder(s) "
        f"unchanged, {len(changed)} written or removed"
    )
    for line in [o.line() for o in changed] + [f"note      {n}" for n in report.notes]:
        logger.info(f"  {line}")


class Plugin(BasePlugin):
    context = ""  # the build's context, once update_connection_config has run

    def configure_connection(self, conn) -> None:
        try:
            apply_build_settings(conn)
        except ConcordError as error:
            raise RuntimeError(f"{error.message}. {error.hint}") from None
        # the files the models read (the landing) are named relative to the project folder:
        # DuckDB resolves relative paths from it, not from the working directory
        conn.execute("set global file_search_path = ?", [str(_project_dir())])
        self.configure_cursor(conn)

    def configure_cursor(self, cursor) -> None:
        # a variable is one connection's: each cursor dbt runs a model on gets it
        cursor.execute(f"set variable {CONTEXT_VARIABLE} = ?", [self.context])

    def update_connection_config(self, creds, config) -> None:
        try:
            check_build_db_path(creds.path)  # refuses :memory: and a remote path first
            if not Path(creds.path).is_absolute():  # from the project folder, like the rest
                creds.path = str(_project_dir() / creds.path)
            prepare_build_db(creds.path)
            try:  # the lock dbt is about to take, taken and released once to name its holder
                duckdb.connect(creds.path, config=dict(config)).close()
            except duckdb.IOException as error:
                lock = build_lock_error(creds.path, error)
                if lock is None:
                    raise
                raise lock from error
            self.context = _hold_and_land()
        except ConcordError as error:
            # dbt prints the exception's text: the hint goes on the same message
            raise RuntimeError(f"{error.message}. {error.hint}") from None
