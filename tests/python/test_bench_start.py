"""bench/bench_start.py's floor project is the graph it stands for: as many table models,
data tests and unit tests as it is given, every one of them passing."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter

import pytest
from bench_modules import bench_module

from concord_io.project import DBT

pytestmark = pytest.mark.warehouse

bench_start = bench_module("bench_start")


def test_floor_project_has_the_nodes_it_is_given(tmp_path):
    nodes = {"model": 3, "test": 5, "unit_test": 2}  # more tests than models: two on one
    project = bench_start.trivial_project(tmp_path / "floor", nodes)
    env = dict(os.environ, CONCORD_DB_PATH=str(tmp_path / "floor.duckdb"))
    subprocess.run(
        [str(DBT), "build", "--profiles-dir", ".", "--project-dir", "."],
        cwd=project,
        env=env,
        capture_output=True,
        check=True,
    )
    run = json.loads((project / "target" / "run_results.json").read_text())
    assert Counter(n["unique_id"].split(".")[0] for n in run["results"]) == nodes
    assert {n["status"] for n in run["results"]} <= {"success", "pass"}
