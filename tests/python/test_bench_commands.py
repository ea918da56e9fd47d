"""Every `python -m <module>` a benchmark starts names a module Python can run: bench/ runs
only by hand and on idle machines, so a module moved or renamed would otherwise surface at
the next measurement (bench_spark.py's `concord_io.landing` did)."""

from __future__ import annotations

import importlib.util
import re

from concord_io.project import PROJECT_ROOT

MODULE_RUN = re.compile(r'"-m",\s*"([A-Za-z_][\w.]*)"')


def test_every_module_a_benchmark_runs_can_be_run():
    started = {
        (script.name, module)
        for script in sorted((PROJECT_ROOT / "bench").glob("*.py"))
        for module in MODULE_RUN.findall(script.read_text(encoding="utf-8"))
    }
    assert {module for _, module in started} >= {"concord_io.cli", "concord_io.dbt_sequence"}
    not_runnable = []
    for script, module in sorted(started):
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.submodule_search_locations is not None:  # a package
            spec = importlib.util.find_spec(f"{module}.__main__")
        if spec is None:
            not_runnable.append(f"{script}: python -m {module}")
    assert not not_runnable, not_runnable
