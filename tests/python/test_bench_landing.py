"""The landing benchmark's quick mode runs (bench/bench_mcq.py --landing), so its code and
its floors cannot rot: every size lands every run, and each floor writes its rows."""

from __future__ import annotations

import json

import pytest
from bench_modules import bench_module

from concord_io.landing.schemas import declared_seeds
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


def test_landing_per_row_is_the_line_through_the_smallest_and_largest_size():
    bench = bench_module("bench_mcq")

    def size(rows: int, landing: float, floor: float) -> dict:
        return {"answer_rows": rows, "landing": {"seconds": landing},
                "landing_shape_floor": {"seconds": floor}}  # fmt: skip

    # ours 1 s + 0.6 µs a row, the floor 0.2 µs a row: 3.0x per row
    results = [size(10**6, 1.6, 0.2), size(10**7, 7.0, 2.0), {"wide": "100 x 2"}]
    (line,) = [text for text in bench._landing_per_row(results) if text]
    assert "0.60 µs a row and 1.00 s fixed" in line and "0.025 s a run" in line
    assert "0.20 µs a row and 0.00 s" in line and "per row 3.0× the floor" in line
    assert bench._landing_per_row(results[:1]) == []
