"""The static report: drawn from the serving file, self-contained (no network), every figure
present and non-empty when rendered by headless Chromium, and a "no data yet" note (not a
crash) for a study whose marts are absent or empty. A screenshot is kept in
tests/artifacts/ (git-ignored)."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import pytest

from concord_io.paths import PROJECT_ROOT
from concord_io.publish import CURRENT_DB, publish
from concord_io.report import STUDIES, build_report

ARTIFACTS = PROJECT_ROOT / "tests" / "artifacts"
FIGURES = {fig.key: study for study, _, figures in STUDIES for fig in figures}
# the shipped seeds have no probe run: its figure may be a note
OPTIONAL = {"probe"}


class Figures(HTMLParser):
    """Collects every <figure data-figure> with its attributes and text."""

    def __init__(self) -> None:
        super().__init__()
        self.figures: dict[str, dict] = {}
        self.current: str | None = None
        self.depth = 0
        self.body: dict = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body":
            self.body = attrs
        if tag == "figure" and "data-figure" in attrs:
            self.current = attrs["data-figure"]
            self.figures[self.current] = {**attrs, "text": "", "svg": 0}
            self.depth = 0
        elif self.current:
            if tag == "figure":
                self.depth += 1
            if tag == "svg":
                self.figures[self.current]["svg"] += 1

    def handle_endtag(self, tag):
        if tag == "figure" and self.current:
            if self.depth == 0:
                self.current = None
            else:
                self.depth -= 1

    def handle_data(self, data):
        if self.current:
            self.figures[self.current]["text"] += data


def parse(page: str) -> Figures:
    parser = Figures()
    parser.feed(page)
    return parser


@pytest.fixture(scope="module")
def report(warehouse, tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("report")
    publish(warehouse, work / "serving", warehouse.parent / "target" / "manifest.json")
    return build_report(work / "serving" / CURRENT_DB, work / "site")


def test_report_is_self_contained(report):
    page = report.read_text(encoding="utf-8")
    assert not re.search(r"https?:|//[a-z0-9.-]+\.[a-z]{2,}", page, re.IGNORECASE)
    for link in re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', page):
        assert not link.startswith("/") and ":" not in link, link
    assert "<link" not in page and "@import" not in page


def test_every_figure_has_data_and_a_caption(report):
    figures = parse(report.read_text(encoding="utf-8")).figures
    assert set(figures) == set(FIGURES)
    for key, study in FIGURES.items():
        fig = figures[key]
        assert fig["text"].strip(), key
        if study in OPTIONAL and fig["data-state"] == "empty":
            assert "No data yet" in fig["text"]
            continue
        assert fig["data-state"] == "ok", (key, fig["text"])
        assert fig["svg"] == 1 and int(fig["data-marks"]) > 0, key


def test_agreement_figure_shows_the_mart_values(report, warehouse):
    page = report.read_text(encoding="utf-8")
    with duckdb.connect(str(warehouse), read_only=True) as con:
        rows = con.execute(
            "select model, run, agreement_pct, agreement_ci_low, agreement_ci_high "
            "from marts.mcq_agreement_summary"
        ).fetchall()
    figure = page[page.index('id="fig-mcq-agreement"') :].split("</figure>")[0]
    for model, run, pct, low, high in rows:
        label = model if run == "base" else f"{model} ({run})"
        assert f"{label}: {pct:.3f}</title>" in figure
        assert f"{label}: [{low:.3f}, {high:.3f}]</title>" in figure


def test_absent_or_empty_marts_give_notes_not_errors(tmp_path):
    serving = tmp_path / "serving.duckdb"
    with duckdb.connect(str(serving)) as con:
        con.execute("create schema marts")
        # one study's mart present but empty, the others absent
        con.execute(
            "create table marts.mcq_agreement_summary (model varchar, run varchar, "
            "agreement_pct double, agreement_ci_low double, agreement_ci_high double)"
        )
    figures = parse(build_report(serving, tmp_path / "site").read_text()).figures
    assert set(figures) == set(FIGURES)
    for key, fig in figures.items():
        assert fig["data-state"] == "empty" and "No data yet" in fig["text"], key
    assert "has no rows yet" in figures["mcq-agreement"]["text"]
    assert "not published yet" in figures["rater-kappa"]["text"]


def chromium() -> list[str]:
    """Headless Chromium with no network: its own network namespace where possible."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.skip("chromium is not installed (`make chromium` installs Debian's package)")
    isolate = ["unshare", "--net"] if shutil.which("unshare") else []
    if isolate and subprocess.run([*isolate, "true"], capture_output=True).returncode != 0:
        isolate = []
    return [
        *isolate,
        binary,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        "--proxy-server=127.0.0.1:9",
        "--host-resolver-rules=MAP * ~NOTFOUND",
    ]


@pytest.mark.browser
def test_report_renders_in_headless_chromium(report):
    command = chromium()
    url = report.resolve().as_uri()
    dom = subprocess.run(
        [*command, "--virtual-time-budget=3000", "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    page = parse(dom)
    assert page.body.get("data-checked") == "1", "the page's own check did not run"
    assert set(page.figures) == set(FIGURES)
    for key, study in FIGURES.items():
        fig = page.figures[key]
        if study in OPTIONAL and fig["data-state"] == "empty":
            continue
        width, height = (int(v) for v in fig["data-rendered-size"].split("x"))
        assert width > 100 and height > 50, (key, fig["data-rendered-size"])
        assert int(fig["data-visible-marks"]) > 0, key
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "report.png"
    shot.unlink(missing_ok=True)
    subprocess.run(
        [*command, "--window-size=1000,7000", f"--screenshot={shot}", url],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert shot.stat().st_size > 20_000
