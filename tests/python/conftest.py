"""Shared fixtures: a warehouse built once per session, and throw-away project copies."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from concord_io.paths import PROJECT_ROOT
from concord_io.project import copy_project, run_dbt


@pytest.fixture(scope="session")
def warehouse(tmp_path_factory) -> Path:
    """The shipped seeds built with `dbt build` into a fresh database file."""
    database = tmp_path_factory.mktemp("warehouse") / "concord.duckdb"
    run_dbt(["build"], PROJECT_ROOT, database)
    return database


@pytest.fixture
def marts(warehouse):
    """A read-only connection to the built warehouse."""
    with duckdb.connect(str(warehouse), read_only=True) as con:
        yield con


@pytest.fixture
def project_copy(tmp_path) -> Path:
    return copy_project(tmp_path / "project")
