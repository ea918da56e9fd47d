"""A dbt-duckdb plugin (profiles.yml, target dev) that checks the build database just before
dbt opens it: the path (see :func:`concord_io.paths.prepare_build_db`: never inside a
serving folder; its folder is created, so a fresh clone builds with plain ``dbt build``) and
the file's lock, so that a build already running, or a reader holding the build file, is
named with its process id instead of DuckDB's bare lock error. It also gives dbt's
connection the settings of every Concord connection
(:func:`concord_io.connect.apply_build_settings`: the memory limit)."""

from __future__ import annotations

import duckdb
from dbt.adapters.duckdb.plugins import BasePlugin

from concord_io.connect import apply_build_settings, build_lock_error
from concord_io.errors import ConcordError
from concord_io.paths import prepare_build_db


class Plugin(BasePlugin):
    def configure_connection(self, conn) -> None:
        try:
            apply_build_settings(conn)
        except ConcordError as error:
            raise RuntimeError(f"{error.message}. {error.hint}") from None

    def update_connection_config(self, creds, config) -> None:
        try:
            prepare_build_db(creds.path)  # refuses :memory: and a remote path too
            try:  # the lock dbt is about to take, taken and released once to name its holder
                duckdb.connect(creds.path, config=dict(config)).close()
            except duckdb.IOException as error:
                lock = build_lock_error(creds.path, error)
                if lock is None:
                    raise
                raise lock from error
        except ConcordError as error:
            # dbt prints the exception's text: the hint goes on the same message
            raise RuntimeError(f"{error.message}. {error.hint}") from None
