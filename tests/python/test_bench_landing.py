"""The landing benchmark's quick mode runs (bench/bench_mcq.py --landing), so its code and
its floors cannot rot: every size lands every run, and each floor writes its rows."""

from __future__ import annotations

import json

import pytest
from bench_modules import bench_module

from concord_io.landing.seed_sources import declared_seeds
from concord_io.paths import project_root

pytestmark = pytest.mark.slow  # the benchmark's quick mode


def test_bench_landing_quick_mode(tmp_path):
    bench = bench_module("bench_mcq")
    bench.main_landing(True, tmp_path, [])
    report = json.loads((tmp_path / "landing_quick.json").read_text())
    long_sizes, wide = report["results"][:-1], report["results"][-1]
    assert [r["answer_rows"] for r in long_sizes] == [1_000]
    seeds = len(declared_seeds(project_root()))  # landed too, as concord build lands them
    for result in long_sizes:
        assert result["landing"]["folders"] == 41 + seeds  # 40 runs and the items
        assert result["landing_unchanged"]["folders"] == 41 + seeds
        assert result["landing_floor"]["seconds"] > 0
        assert result["landing_shape_floor"]["seconds"] > 0
    assert wide["answer_rows"] == 3 * 300 * 4 and wide["landing"]["folders"] == 5 + seeds
    table = (tmp_path / "landing_quick.md").read_text()
    assert "| 1,000 |" in table and "(wide, 300 x 4)" in table
