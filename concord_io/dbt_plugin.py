"""A dbt-duckdb plugin (profiles.yml, target dev) that checks the build database path just
before dbt opens it: see :func:`concord_io.paths.prepare_build_db`. It runs before any
macro could, so a build never opens a published serving file for writing, and it creates
the database's folder, so a fresh clone builds with plain ``dbt build``."""

from __future__ import annotations

from dbt.adapters.duckdb.plugins import BasePlugin

from concord_io.errors import ConcordError
from concord_io.paths import prepare_build_db


class Plugin(BasePlugin):
    def update_connection_config(self, creds, config) -> None:
        if creds.path and creds.path != ":memory:" and ":" not in creds.path.split("/")[0]:
            try:
                prepare_build_db(creds.path)
            except ConcordError as error:
                # dbt prints the exception's text: put the hint on the same message
                raise RuntimeError(f"{error.message}. {error.hint}") from None
