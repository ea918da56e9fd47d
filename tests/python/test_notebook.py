"""The starter notebook (notebooks/concord_start.ipynb) runs top to bottom against the
embedded build's serving file, offline, in the kernel the docs name; its headline table and
figures carry the marts' values (read here from the build database), its figures are static
SVG that fetch nothing, and its probe section says how to get a run when none is published."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import duckdb
import nbformat
import pandas as pd
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient

from concord_io.project import PROJECT_ROOT
from concord_io.serving.publish import CURRENT_DB, publish

NOTEBOOK = PROJECT_ROOT / "notebooks" / "concord_start.ipynb"
DOCS = [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").glob("*.md"))]
# `python -m ipykernel install ... --name NAME`, within one code span
KERNEL_INSTALL = re.compile(r"ipykernel install [^`]*?--name[ =]([\w.-]+)")
PROBE_MART = "marts.probe_paired_summary"
ACCURACY_MART = "marts.mcq_calibration_bins_v2"
ACCURACY_HINT = (
    "No run has a gold yet: `concord add PATH` imports an lm-evaluation-harness or "
    "Inspect AI run, then `make build`."
)
PROBE_HINT = (
    "No probe run is published yet: run `make probe-install`, then `concord probe demo`, "
    "then `make build`."
)
# The notebook's kernel loads this first (PYTHONPATH): a connection or a name lookup beyond
# the machine's loopback fails, so a figure that fetched anything would fail the run.
OFFLINE_GUARD = """
import ipaddress
import socket

MARK = "offline guard"


def _local(host):
    if host is None or host == "localhost":
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def _checked(address):
    if isinstance(address, tuple) and not _local(address[0]):
        raise OSError(f"{MARK}: no connection to {address[0]}")


_connect, _connect_ex, _getaddrinfo = (
    socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo
)


def connect(self, address):
    _checked(address)
    return _connect(self, address)


def connect_ex(self, address):
    _checked(address)
    return _connect_ex(self, address)


def getaddrinfo(host, *args, **kwargs):
    name = host.decode() if isinstance(host, bytes) else host
    if not _local(name):
        raise socket.gaierror(f"{MARK}: no name lookup of {name}")
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo = (
    connect, connect_ex, getaddrinfo
)
"""
# appended to the notebook for the run: shows that the guard holds in its kernel
TRY_THE_NETWORK = """import socket
try:
    socket.create_connection(("example.org", 443), timeout=5).close()
    print("reached the network")
except OSError as error:
    print(error)"""


@dataclass
class Run:
    notebook: nbformat.NotebookNode  # the notebook's own cells, executed
    kernel: str  # the kernel it ran in
    network: str  # what the guard said when the kernel tried to go out


def documented_kernels() -> set[str]:
    """The kernel names that README.md and docs/ tell people to install."""
    names: set[str] = set()
    for doc in DOCS:
        # one line: a command may wrap in the Markdown source
        names.update(KERNEL_INSTALL.findall(" ".join(doc.read_text(encoding="utf-8").split())))
    return names


@pytest.fixture(scope="module")
def run(warehouse, tmp_path_factory) -> Run:
    serving = tmp_path_factory.mktemp("serving")
    publish(warehouse, serving, warehouse.parent / "target" / "manifest.json")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert not any(c.get("outputs") for c in notebook.cells if c.cell_type == "code"), (
        "commit the notebook without outputs"
    )
    # the notebook's kernel, installed as the docs say, in a Jupyter path of this test's own
    jupyter = tmp_path_factory.mktemp("jupyter")
    kernel = notebook.metadata.kernelspec.name
    subprocess.run(
        [sys.executable, "-m", "ipykernel", "install", "--prefix", str(jupyter)]
        + ["--name", kernel],
        check=True,
        capture_output=True,
    )
    guard = tmp_path_factory.mktemp("offline")
    (guard / "sitecustomize.py").write_text(OFFLINE_GUARD, encoding="utf-8")
    notebook.cells.append(nbformat.v4.new_code_cell(TRY_THE_NETWORK))
    mp = pytest.MonkeyPatch()
    # the kernel inherits these
    mp.setenv("CONCORD_SERVING", str(serving / CURRENT_DB))
    mp.setenv("JUPYTER_PATH", str(jupyter / "share" / "jupyter"))
    mp.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(guard), os.getenv("PYTHONPATH")])))
    try:
        spec = KernelSpecManager().get_kernel_spec(kernel)
        assert Path(spec.resource_dir).is_relative_to(jupyter), spec.resource_dir
        client = NotebookClient(  # no kernel_name: the one the notebook names
            notebook, timeout=180, resources={"metadata": {"path": str(NOTEBOOK.parent)}}
        )
        client.execute()
    finally:
        mp.undo()
    tried = notebook.cells.pop()
    return Run(notebook, client.kernel_name, "".join(o.get("text", "") for o in tried.outputs))


@pytest.fixture(scope="module")
def executed(run) -> nbformat.NotebookNode:
    return run.notebook


def outputs(notebook, mime: str) -> list[str]:
    return [
        o["data"][mime]
        for c in notebook.cells
        if c.cell_type == "code"
        for o in c.outputs
        if mime in o.get("data", {})
    ]


def data_marks(svg: str) -> list[tuple[str, str]]:
    """(kind, hover text) of each data mark of a Vega SVG (its aria-roledescription and
    aria-label), axes, legends and titles left out."""
    return [
        (e.get("aria-roledescription"), e.get("aria-label"))
        for e in ElementTree.fromstring(svg).iter()
        if e.get("role") == "graphics-symbol"
        and e.get("aria-roledescription") not in ("axis", "legend", "title")
        and e.get("aria-label")
    ]


def test_the_docs_kernel_step_installs_what_it_runs():
    """`make build` installs the warehouse's dependencies only; the docs' kernel command
    runs `python -m ipykernel`, so they name the make target whose extra holds it first."""
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = project["project"]["optional-dependencies"]
    assert [r for r in extras["notebook"] if r.startswith("ipykernel==")]
    assert not [r for r in project["project"]["dependencies"] if r.startswith("ipykernel")]
    makefile = (PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(
        r"^notebook-install:.*\n\t\$\(UV_INSTALL\) -e '\.\[notebook\]'$", makefile, re.M
    )
    text = " ".join((PROJECT_ROOT / "docs" / "serving.md").read_text(encoding="utf-8").split())
    assert text.index("make notebook-install") < text.index("ipykernel install")


def test_the_notebook_uses_the_kernel_the_docs_name():
    """README.md and docs/ say how to install the notebook's kernel, under one name: the
    name in the notebook's metadata, so that Jupyter starts that kernel for it."""
    documented = documented_kernels()
    assert documented, "README.md or docs/ should say how to install the notebook's kernel"
    assert documented == {nbformat.read(NOTEBOOK, as_version=4).metadata.kernelspec.name}


def test_notebook_runs_offline_without_errors(run):
    errors = [
        o for c in run.notebook.cells for o in c.get("outputs", []) if o.output_type == "error"
    ]
    assert not errors, errors
    assert run.kernel == "concord"
    # the kernel could not reach the network: the run above needed none
    assert "offline guard: no name lookup of example.org" in run.network, run.network


def test_outputs_load_no_script_and_name_no_url(executed):
    text = json.dumps([o for c in executed.cells if c.cell_type == "code" for o in c.outputs])
    assert "cdn.jsdelivr" not in text and "<script" not in text and "vegaEmbed" not in text
    # the only addresses are the SVG namespaces: nothing to fetch
    urls = set(re.findall(r"https?://[^\s\"'<>\\]+", text))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}, urls


def test_headline_table_and_figures_show_the_marts(executed, warehouse):
    with duckdb.connect(str(warehouse), read_only=True) as con:
        runs = con.execute(
            "select task, model, variant, full_agreement_pct, fleiss_kappa, n_full_agreement "
            "from marts.mcq_agreement_summary_v2"
        ).fetchall()
    assert {variant for _, _, variant, *_ in runs} == {"base", "shuffled"}
    tables = outputs(executed, "text/html")
    headline = next(t for t in tables if "full_agreement_ci_low" in t and "fleiss_kappa" in t)
    for task, model, _, pct, kappa, _ in runs:
        assert task in headline and model in headline
        assert f"{pct:.1f}" in headline and f"{kappa:.3f}" in headline
    # two figures, drawn as SVG in the kernel: one bar per run at its full agreement
    figures = outputs(executed, "image/svg+xml")
    assert len(figures) == 2
    bars = [label for kind, label in data_marks(figures[0]) if kind == "bar"]
    assert len(bars) == len(runs)
    for _, model, variant, pct, _, _ in runs:
        (bar,) = [b for b in bars if f"model: {model};" in b and f"variant: {variant};" in b]
        assert f"full_agreement_pct: {pct:.1f}" in bar, bar
    # the second: each run's items split by disagreement type, with its legend
    stacked = [label for kind, label in data_marks(figures[1]) if kind == "bar"]
    assert len(stacked) == 5 * len(runs)
    for task, model, variant, _, _, n in runs:
        (bar,) = [
            b for b in stacked if f"run: {model} ({variant});" in b and "full_agreement;" in b
        ]
        assert f"items: {n};" in bar and f"task: {task};" in bar, bar
    assert "disagreement type" in figures[1]


@pytest.mark.parametrize(
    ("mart", "hint"), [(PROBE_MART, PROBE_HINT), (ACCURACY_MART, ACCURACY_HINT)]
)
def test_a_section_without_data_says_what_to_run(executed, mart, hint):
    """The embedded build publishes no probe run and no gold: one line says what to run."""
    (cell,) = [c for c in executed.cells if c.cell_type == "code" and mart in c.source]
    assert [o.output_type for o in cell.outputs] == ["stream"]
    assert cell.outputs[0].text == hint + "\n"


def run_cell(mart: str, tables: list[str], monkeypatch) -> list:
    """The notebook's code cell that reads ``mart``, run on its own over a database of
    ``tables`` (their create statements, in a schema marts): what it displayed."""
    import altair as alt

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    (cell,) = [c for c in notebook.cells if c.cell_type == "code" and mart in c.source]
    shown: list = []
    monkeypatch.setattr("IPython.display.display", shown.append)
    with duckdb.connect() as con:
        con.execute("create schema marts")
        for table in tables:
            con.execute(table)
        exec(cell.source, {"con": con, "alt": alt})
    return shown


@pytest.mark.parametrize("runs", [0, 2])
def test_probe_section_shows_the_published_runs(runs, monkeypatch, capsys):
    """The probe cell on its own, over a marts.probe_paired_summary of ``runs`` runs."""
    table = (
        "create table marts.probe_paired_summary as select * from (values "
        "('run-b', 'model b', 'IR', 'US', 10, -0.12345, -0.2, -0.05, 0.01), "
        "('run-a', 'model a', 'IT', 'US', 10, 0.0004, -0.1, 0.1, 0.9)) "
        "t(run_id, model, group_name, baseline_group, n_messages, mean_delta, ci_low, "
        f"ci_high, p_value) limit {runs}"
    )
    shown = run_cell(PROBE_MART, [table], monkeypatch)
    printed = capsys.readouterr().out
    if not runs:
        assert printed == PROBE_HINT + "\n" and not shown
        return
    assert not printed
    (frame,) = shown
    assert isinstance(frame, pd.DataFrame)
    assert frame[["model", "run_id", "group_name"]].values.tolist() == [
        ["model a", "run-a", "IT"],
        ["model b", "run-b", "IR"],
    ]
    assert frame["mean_delta"].tolist() == [0.0, -0.123]


def test_two_runs_compared_shows_the_marts_comparisons(executed, warehouse):
    """The paired comparisons of the embedded build: a row per pair, with its languages,
    items, difference and Holm-adjusted p-value as marts.mcq_model_comparison holds them."""
    with duckdb.connect(str(warehouse), read_only=True) as con:
        pairs = con.execute(
            "select model_a, model_b, n_languages, n_items, difference_pp, p_value_holm "
            "from marts.mcq_model_comparison"
        ).fetchall()
    (table,) = [t for t in outputs(executed, "text/html") if "p_value_holm" in t]
    body = table[table.index("<tbody>") :]
    assert body.count("<tr>") == len(pairs) > 1 and "n_languages" in table
    for a, b, n_languages, n_items, diff, _ in pairs:
        cells = (a, b, n_languages, n_items)
        row = "\n      ".join(f"<td>{value}</td>" for value in cells)
        assert row in body and f"{round(diff, 3)}" in body, row


def test_accuracy_section_shows_the_table_and_the_reliability_diagram(monkeypatch, capsys):
    """The accuracy cell on its own, over a run with a gold: the harness's figures per
    language, and its reliability points pooled over languages (bin 8: en's and it's
    items summed), drawn offline with the diagonal."""
    import vl_convert

    shown = run_cell(
        ACCURACY_MART,
        [
            "create table marts.mcq_accuracy as select * from (values "
            "('xcopa', 'm-a', null, 'base', 'en', 100, 61.0, 4.9, 58.0, 0.51, 0.08), "
            "('xcopa', 'm-a', null, 'base', 'it', 100, 55.0, 5.0, null, null, null)) "
            "t(task, model, model_revision, variant, language, n_items, accuracy_pct, "
            "accuracy_std_error, accuracy_norm_pct, brier_score, expected_calibration_error)",
            "create table marts.mcq_calibration_bins_v2 as select * from (values "
            "('xcopa', 'm-a', null, 'base', 'en', 'summed', 5, 40, 22, 0.55), "
            "('xcopa', 'm-a', null, 'base', 'en', 'summed', 8, 60, 39, 0.85), "
            "('xcopa', 'm-a', null, 'base', 'it', 'summed', 8, 10, 5, 0.81), "
            "('xcopa', 'm-a', null, 'base', 'en', 'length_normalised', 8, 100, 58, 0.8)) "
            "t(task, model, model_revision, variant, language, distribution, calibration_bin, "
            "n_items, n_correct, mean_confidence)",
        ],
        monkeypatch,
    )
    assert not capsys.readouterr().out
    table, chart = shown
    assert table["language"].tolist() == ["en", "it"] and table["accuracy_pct"].tolist() == [
        61.0,
        55.0,
    ]
    svg = vl_convert.vegalite_to_svg(chart.to_dict())
    assert svg.count('role="graphics-symbol"') >= 2
    spec = chart.to_dict()
    points = spec["datasets"][next(iter(spec["datasets"]))]
    assert [(p["calibration_bin"], p["n_items"]) for p in points] == [(5, 40), (8, 70)]
    assert points[1]["accuracy"] == pytest.approx(44 / 70)
    assert points[1]["mean_confidence"] == pytest.approx((60 * 0.85 + 10 * 0.81) / 70)
