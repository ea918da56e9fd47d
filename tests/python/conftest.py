"""Shared fixtures: a warehouse built (and passed by the quality checkpoint) once per test
run, and throw-away project copies."""

from __future__ import annotations

import fcntl
import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from concord_io.project import PROJECT_ROOT, copy_project, run_dbt


def built_once(tmp_path_factory, name: str, build: Callable[[Path], Any]) -> Any:
    """``build(folder)`` once per test run. Under pytest-xdist the workers share one folder:
    the first to ask builds under a lock, the others wait and read what it returned."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return build(tmp_path_factory.mktemp(name))
    root = tmp_path_factory.getbasetemp().parent  # the run's folder, shared by the workers
    folder, done = root / name, root / f"{name}.pickle"
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            done.write_bytes(pickle.dumps(build(folder)))
    return pickle.loads(done.read_bytes())


def _build_warehouse(folder: Path):
    from concord_io.quality import run_quality

    database = folder / "concord.duckdb"
    # every data test and every unit test, once in a test run (other builds leave the unit
    # tests out: run_dbt)
    run_dbt(["build"], PROJECT_ROOT, database, artifacts=True, unit_tests=True)
    out = folder / "quality"
    return database, run_quality(database, out), out


@pytest.fixture(scope="session")
def warehouse(warehouse_quality) -> Path:
    """The shipped seeds built with `dbt build` into a fresh database file, then checked by
    the quality checkpoint (as `make build` does), so that publish accepts it. Tests only
    read it: a write would void its quality record."""
    return warehouse_quality[0]


@pytest.fixture(scope="session")
def warehouse_quality(tmp_path_factory):
    """(database, quality result, quality folder) of the session's warehouse."""
    return built_once(tmp_path_factory, "warehouse", _build_warehouse)


@pytest.fixture
def marts(warehouse):
    """A read-only connection to the built warehouse."""
    with duckdb.connect(str(warehouse), read_only=True) as con:
        yield con


@pytest.fixture
def project_copy(tmp_path) -> Path:
    return copy_project(tmp_path / "project")
