"""docs/first-day.md tells a new user what a fresh `make build` gives; its figures are held to
the session's build of the shipped seeds (the same `dbt build` and quality checkpoint that
`make build` runs): how many marts and rows are published, how many expectations pass, and
what `concord status` says of the probe before any run. Timings are the machine's and are
not checked."""

from __future__ import annotations

import re

import duckdb
import pytest

from concord_io.project import PROJECT_ROOT

FIRST_DAY = PROJECT_ROOT / "docs" / "first-day.md"

pytestmark = pytest.mark.warehouse


def stated(pattern: str) -> list[tuple[str, ...]]:
    """Every match of ``pattern`` in docs/first-day.md (at least one)."""
    found = re.findall(pattern, " ".join(FIRST_DAY.read_text(encoding="utf-8").split()))
    assert found, f"docs/first-day.md no longer says {pattern!r}"
    return [f if isinstance(f, tuple) else (f,) for f in found]


def test_the_marts_and_rows_it_states_are_a_builds(warehouse):
    with duckdb.connect(str(warehouse), read_only=True) as con:
        # tables and views (the facts): publish writes each as a table
        marts = [
            name
            for (name,) in con.execute(
                "select table_name from information_schema.tables where table_schema = 'marts'"
            ).fetchall()
        ]
        rows = sum(con.execute(f'select count(*) from marts."{m}"').fetchone()[0] for m in marts)
    for (n,) in stated(r"the row count of each of the (\d+) marts"):
        assert int(n) == len(marts)
    for n, total in stated(r"(\d+) tables in schema marts, (\d+) rows"):
        assert (int(n), int(total)) == (len(marts), rows)


def test_the_expectations_it_states_are_the_checkpoints(warehouse_quality):
    _, result, _ = warehouse_quality
    for (n,) in stated(r"quality: all (\d+) expectations passed"):
        assert int(n) == result.n_expectations
