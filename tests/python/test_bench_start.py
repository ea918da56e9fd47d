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
    unselected = {"model": 4, "test": 2, "unit_test": 1}
    project = bench_start.trivial_project(tmp_path / "floor", nodes, unselected)
    env = dict(os.environ, CONCORD_DB_PATH=str(tmp_path / "floor.duckdb"))
    subprocess.run(
        [str(DBT), "build", "--select", "path:models/selected"]
        + ["--profiles-dir", ".", "--project-dir", "."],
        cwd=project,
        env=env,
        capture_output=True,
        check=True,
    )
    run = json.loads((project / "target" / "run_results.json").read_text())
    assert Counter(n["unique_id"].split(".")[0] for n in run["results"]) == nodes
    assert {n["status"] for n in run["results"]} <= {"success", "pass"}
    # the rest is parsed and held in the manifest, not run
    whole = {kind: nodes[kind] + unselected[kind] for kind in nodes}
    assert bench_start.project_nodes(project) == whole


def test_fitted_line_is_least_squares():
    """numpy's polyfit is the independent line: the same fixed and per-node seconds."""
    import numpy as np

    points = {1: 3.1, 30: 5.0, 60: 7.2, 90: 8.9}
    fixed, per_node = bench_start.fitted_line(points)
    slope, intercept = np.polyfit(list(points), list(points.values()), 1)
    assert (fixed, per_node) == pytest.approx((intercept, slope), rel=1e-12)
    assert bench_start.fitted_line({0: 1.0, 10: 2.0}) == pytest.approx((1.0, 0.1))
