"""The examples in concord_stats' docstrings run and give the values they show (published
values where one exists), and every public function has one."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import pytest

import concord_stats

MODULES = sorted(
    info.name for info in pkgutil.iter_modules(concord_stats.__path__, "concord_stats.")
)


def public_functions(module) -> list[str]:
    return [
        name
        for name, value in vars(module).items()
        if inspect.isfunction(value)
        and value.__module__ == module.__name__
        and not name.startswith("_")
    ]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    functions = public_functions(module)
    without = [f for f in functions if ">>>" not in (getattr(module, f).__doc__ or "")]
    assert not without, f"public functions without an example: {without}"
    # failures are printed (pytest shows them with the assertion)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
    assert result.attempted > 0 or not functions
