"""Markers that follow from what a test uses, so that a new test is marked without asking.

A test that uses a built warehouse or a project copy (the fixtures below) runs dbt: it is a
``warehouse`` test. Every test under ``tests/probe`` needs the probe's extra (torch,
transformers): it is a ``probe`` test. Tests that run dbt or the probe some other way carry
the marker themselves. ``make test-fast`` deselects all of them (see pyproject.toml).
"""

from __future__ import annotations

from pathlib import Path

import pytest

WAREHOUSE_FIXTURES = {"warehouse", "marts", "project_copy"}
PROBE_TESTS = Path(__file__).resolve().parent / "probe"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if WAREHOUSE_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.warehouse)
        if PROBE_TESTS in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.probe)
