"""The Kendall benchmark's quick mode runs, so bench/bench_kendall.py cannot rot."""

from __future__ import annotations

import importlib.util
import json

import pytest

from concord_io.project import PROJECT_ROOT as ROOT

pytestmark = pytest.mark.slow  # the benchmark's quick mode

BENCH = ROOT / "bench" / "bench_kendall.py"


def test_bench_kendall_quick_mode(tmp_path):
    spec = importlib.util.spec_from_file_location("bench_kendall", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.main(["--quick", "--out", str(tmp_path)])
    written = json.loads((tmp_path / "kendall.json").read_text())
    assert written["size"] == result["size"]
    assert (tmp_path / "kendall.md").read_text().startswith("# Kendall tau-b")
    assert result["loop"]["max_abs_difference_vs_vectorised"] < 1e-12
    assert [row["n_scenarios"] for row in result["vectorised"]] == [500, 1000, 2000, 4000]
    assert all(row["min_count"] == row["n_scenarios"] for row in result["vectorised"])
    assert result["speedup"] > 1
