"""Shared fixtures: a warehouse built (and passed by the quality checkpoint) once per session,
and throw-away project copies."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from concord_io.paths import PROJECT_ROOT
from concord_io.project import copy_project, run_dbt


@pytest.fixture(scope="session")
def warehouse(warehouse_quality) -> Path:
    """The shipped seeds built with `dbt build` into a fresh database file, then checked by
    the quality checkpoint (as `make build` does), so that publish accepts it. Tests only
    read it: a write would void its quality record."""
    return warehouse_quality[0]


@pytest.fixture(scope="session")
def warehouse_quality(tmp_path_factory):
    """(database, quality result, quality folder) of the session's warehouse."""
    from concord_io.quality import run_quality

    database = tmp_path_factory.mktemp("warehouse") / "concord.duckdb"
    run_dbt(["build"], PROJECT_ROOT, database)
    out = database.parent / "quality"
    return database, run_quality(database, out), out


@pytest.fixture
def marts(warehouse):
    """A read-only connection to the built warehouse."""
    with duckdb.connect(str(warehouse), read_only=True) as con:
        yield con


@pytest.fixture
def project_copy(tmp_path) -> Path:
    return copy_project(tmp_path / "project")
