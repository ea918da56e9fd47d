"""The benchmarks' modules for the tests: bench/ is no package (its scripts import each other
by name, as ``python bench/<script>.py`` runs them), so it goes on the path once."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

from concord_io.project import PROJECT_ROOT


def bench_module(name: str) -> ModuleType:
    folder = str(PROJECT_ROOT / "bench")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module(name)
