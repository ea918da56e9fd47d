"""The starter notebook (notebooks/concord_start.ipynb) runs top to bottom against the
embedded build's serving file, and its headline table and figures carry the marts' values
(read here from the build database)."""

from __future__ import annotations

import json

import duckdb
import nbformat
import pytest
from nbclient import NotebookClient

from concord_io.project import PROJECT_ROOT
from concord_io.publish import CURRENT_DB, publish

NOTEBOOK = PROJECT_ROOT / "notebooks" / "concord_start.ipynb"


@pytest.fixture(scope="module")
def executed(warehouse, tmp_path_factory):
    serving = tmp_path_factory.mktemp("serving")
    publish(warehouse, serving, warehouse.parent / "target" / "manifest.json")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert not any(c.get("outputs") for c in notebook.cells if c.cell_type == "code"), (
        "commit the notebook without outputs"
    )
    mp = pytest.MonkeyPatch()
    mp.setenv("CONCORD_SERVING", str(serving / CURRENT_DB))  # the kernel inherits it
    try:
        NotebookClient(
            notebook,
            timeout=180,
            kernel_name="python3",
            resources={"metadata": {"path": str(NOTEBOOK.parent)}},
        ).execute()
    finally:
        mp.undo()
    return notebook


def outputs(notebook, mime: str) -> list[str]:
    return [
        o["data"][mime]
        for c in notebook.cells
        if c.cell_type == "code"
        for o in c.outputs
        if mime in o.get("data", {})
    ]


def test_notebook_runs_without_errors(executed):
    errors = [o for c in executed.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, errors


def test_headline_table_and_figures_show_the_marts(executed, warehouse):
    with duckdb.connect(str(warehouse), read_only=True) as con:
        agreement = con.execute(
            "select model, agreement_pct from marts.mcq_agreement_summary where run = 'base'"
        ).fetchall()
        (n_types,) = con.execute(
            "select count(*) from marts.mcq_agreement_summary where run = 'base'"
        ).fetchone()
    tables = outputs(executed, "text/html")
    headline = next(t for t in tables if "agreement_ci_low" in t and "all_different_pct" in t)
    for model, pct in agreement:
        assert model in headline and f"{pct:.1f}" in headline
    # two Altair figures, their Vega-Lite specs embedded with the marts' values
    figures = [t for t in tables if "vega-lite" in t or "vegaEmbed" in t]
    assert len(figures) == 2
    first = figures[0]
    for model, pct in agreement:
        assert json.dumps(model) in first and repr(pct) in first, model
    assert first.count('"model"') >= n_types
    assert "disagreement type" in figures[1]
