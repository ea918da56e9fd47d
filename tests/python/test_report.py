"""The static report: drawn from the serving file, self-contained (no network), every figure
present and non-empty when rendered by headless Chromium, every data mark with its hover
text, labels in full, and a "no data yet" note (not a crash) for a figure or section whose
marts are absent or empty. A screenshot is kept in tests/artifacts/ (git-ignored)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import pytest
import yaml
from browser import chromium_offline

from concord_io.paths import PROJECT_ROOT
from concord_io.publish import CURRENT_DB, publish
from concord_io.quality import DOCS_SITE
from concord_io.report import STUDIES, build_report
from concord_io.report.sections import QUARANTINE_SHOWN

ARTIFACTS = PROJECT_ROOT / "tests" / "artifacts"
FIGURES = {fig.key: study for study, _, figures in STUDIES for fig in figures}
# the shipped seeds have no probe run, and the coefficient mart comes with the rater work:
# these figures may be notes on the shipped build (synthetic marts below draw them)
OPTIONAL = {"probe-delta", "probe-model-comparison", "rater-coefficients"}


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
    for key in FIGURES:
        fig = figures[key]
        assert fig["text"].strip(), key
        if key in OPTIONAL and fig["data-state"] == "empty":
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


def test_order_effect_shows_both_orders_with_their_intervals(report, warehouse):
    """Base and shuffled order side by side in each model's row, each with its bootstrap
    interval: a model whose two values are equal still shows two marks."""
    figure = figure_html(report.read_text(encoding="utf-8"), "mcq-order-effect")
    with duckdb.connect(str(warehouse), read_only=True) as con:
        rows = con.execute(
            "select s.model, s.run, s.agreement_pct, s.agreement_ci_low, s.agreement_ci_high "
            "from marts.mcq_agreement_summary s join marts.mcq_order_effect using (model)"
        ).fetchall()
    assert {run for _, run, *_ in rows} == {"base", "shuffled"}
    for model, run, pct, low, high in rows:
        name = f"{model} · {run} order"
        assert figure.count(f"<title>{name}: {pct:.1f}</title>") == 1, name
        assert figure.count(f"<title>{name}: [{low:.1f}, {high:.1f}]</title>") == 1, name


def test_language_pairs_show_each_pairs_kappa_with_its_interval(report, warehouse):
    figure = figure_html(report.read_text(encoding="utf-8"), "mcq-language-pairs")
    with duckdb.connect(str(warehouse), read_only=True) as con:
        rows = con.execute(
            "select model, run, language_a, language_b, cohen_kappa, cohen_kappa_ci_low, "
            "cohen_kappa_ci_high, n_items from marts.mcq_language_pair_consistency "
            "where cohen_kappa is not null"
        ).fetchall()
    assert len(rows) >= 3
    for model, run, a, b, kappa, low, high, n in rows:
        label = model if run == "base" else f"{model} ({run})"
        assert f"<title>{label} · {a}–{b}: κ = {kappa:.3f} ({n} items)</title>" in figure
        assert f"<title>{label} · {a}–{b}: [{low:.3f}, {high:.3f}]</title>" in figure


def figure_html(page: str, key: str) -> str:
    return page[page.index(f'id="fig-{key}"') :].split("</figure>")[0]


def test_every_data_mark_has_its_hover_text(report, marts):
    """Static SVG has no tooltip handler: each data mark carries an SVG <title>."""
    page = report.read_text(encoding="utf-8")
    for key in FIGURES:
        figure = figure_html(page, key)
        marks = re.findall(r'<(\w+)[^>]*class="mark"[^>]*>(<title>[^<]+</title>)?', figure)
        assert all(title for _, title in marks), key
        assert len(marks) == int(re.search(r'data-marks="(\d+)"', figure).group(1)), key
    kendall = figure_html(page, "ranking-kendall-matrix")
    for rater, other, tau in marts.execute(
        "select rater_id, other_rater_id, mean_tau_b from marts.ranking_pair_kendall"
    ).fetchall():
        assert f"<title>{rater} × {other}: {tau:.2f}</title>" in kendall
    assert "<title>GPT-4o (shuffled) · all_same: " in figure_html(page, "mcq-disagreement-types")


def test_labels_are_shown_in_full(report, marts):
    """Long dataset names once were cut to the same prefix; now every label is whole."""
    page = report.read_text(encoding="utf-8")
    kappa = figure_html(page, "rater-kappa")
    datasets = [
        r[0] for r in marts.execute("select dataset from marts.rater_agreement_summary").fetchall()
    ]
    assert any(len(d) > 30 for d in datasets)
    for dataset in datasets:
        assert f">{dataset}</text>" in kappa, dataset
    for key in FIGURES:
        assert "…" not in figure_html(page, key), key


def test_languages_in_the_order_of_the_dbt_var(report):
    project = yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text(encoding="utf-8"))
    languages = [lang.upper() for lang in project["vars"]["mcq_languages"]]
    page = report.read_text(encoding="utf-8")
    entropy = figure_html(page, "mcq-choice-entropy")
    assert re.findall(r">GPT-4o · (\w+)</text>", entropy) == languages
    frequency = figure_html(page, "mcq-option-frequency")
    assert [x for x in re.findall(r">(\w+)</text>", frequency) if x in languages] == languages


def test_quarantine_section_matches_the_mart(report, marts):
    page = report.read_text(encoding="utf-8")
    (n,) = marts.execute("select count(*) from marts.dq_quarantine").fetchone()
    if n == 0:
        assert 'class="all-clear" data-section="quarantine"' in page
    else:
        assert f"{n} input records were set aside" in page


def test_the_data_notice_comes_first(report):
    page = report.read_text(encoding="utf-8")
    notice = page.index('id="data-notice"')
    assert notice < page.index("<figure") and notice < page.index("<section")
    assert "reconstructed" in page[notice : page.index("</div>", notice)]


def serving_file(path: Path, tables: dict[str, str]) -> Path:
    """A serving file holding only ``tables`` (name -> select statement) in schema marts."""
    with duckdb.connect(str(path)) as con:
        con.execute("create schema marts")
        for name, select in tables.items():
            con.execute(f"create table marts.{name} as {select}")
    return path


PROBE_SUMMARY = """
    select * from (values
        ('run-a', 'IT', 'US', -0.05, -0.09, -0.01),
        ('run-a', 'AR', 'US', 0.02, -0.01, 0.05),
        ('run-b', 'IT', 'US', 0.01, -0.02, 0.04)
    ) as t(run_id, group_name, baseline_group, mean_delta, ci_low, ci_high)
"""


def panel_header(model: str, run_id: str) -> re.Pattern:
    """A panel's header: the model, then the run on a second line."""
    return re.compile(f">{re.escape(model)}</tspan><tspan[^>]*>run {re.escape(run_id)}</tspan>")


def test_probe_figure_names_run_and_model(tmp_path):
    serving = serving_file(
        tmp_path / "serving.duckdb",
        {
            "probe_paired_summary": PROBE_SUMMARY,
            "probe_runs": "select * from (values ('run-a', 'sshleifer/tiny-gpt2')) "
            "as t(run_id, model)",
        },
    )
    page = build_report(serving, tmp_path / "site").read_text(encoding="utf-8")
    figure = figure_html(page, "probe-delta")
    assert 'data-state="ok"' in figure
    # one panel per run, headed by its model and run
    assert panel_header("sshleifer/tiny-gpt2", "run-a").search(figure)
    assert panel_header("model not published", "run-b").search(figure)
    assert "<title>sshleifer/tiny-gpt2 · run run-a · IT: -0.050</title>" in figure
    assert "<title>sshleifer/tiny-gpt2 · run run-a · IT: [-0.090, -0.010]</title>" in figure
    assert "vs US" in figure


def test_text_from_the_marts_is_escaped_in_charts(tmp_path):
    """Names come from data: inside an SVG they stay text, never markup."""
    serving = serving_file(
        tmp_path / "serving.duckdb",
        {
            "probe_paired_summary": """
                select '<script>alert(1)</script>' as run_id, 'A&B "q"' as group_name,
                       'US' as baseline_group, 0.1 as mean_delta, 0.0 as ci_low, 0.2 as ci_high
            """
        },
    )
    page = build_report(serving, tmp_path / "site").read_text(encoding="utf-8")
    figure = figure_html(page, "probe-delta")
    assert 'data-state="ok"' in figure
    assert "<script>alert" not in page
    assert "run &lt;script&gt;alert(1)&lt;/script&gt;" in figure
    assert "A&amp;B" in figure


def test_probe_models_side_by_side(tmp_path):
    """Where the summary carries each run's model, every model and run gets its panel."""
    serving = serving_file(
        tmp_path / "serving.duckdb",
        {
            "probe_paired_summary": """
                select * from (values
                    ('run-a', 'model-x', 'IT', 'US', -0.05, -0.09, -0.01),
                    ('run-a', 'model-x', 'AR', 'US', 0.02, -0.01, 0.05),
                    ('run-c', 'model-y', 'IT', 'US', 0.03, 0.00, 0.06),
                    ('run-c', 'model-y', 'AR', 'US', 0.00, -0.03, 0.03)
                ) as t(run_id, model, group_name, baseline_group, mean_delta, ci_low, ci_high)
            """,
        },
    )
    figure = figure_html(build_report(serving, tmp_path / "site").read_text(), "probe-delta")
    assert panel_header("model-x", "run-a").search(figure)
    assert panel_header("model-y", "run-c").search(figure)
    assert "<title>model-y · run run-c · AR: 0.000</title>" in figure
    assert figure.count("<svg") == 1  # side by side in one chart, on one shared axis


def test_probe_model_comparison(tmp_path):
    serving = serving_file(
        tmp_path / "serving.duckdb",
        {
            "probe_model_comparison": """
                select * from (values
                    ('run-a', 'model-x', 'run-c', 'model-y', 'IT', -0.08, -0.12, -0.04, 0.002),
                    ('run-a', 'model-x', 'run-c', 'model-y', 'AR', 0.02, -0.02, 0.06, 0.41)
                ) as t(run_id_a, model_a, run_id_b, model_b, group_name, mean_difference,
                       ci_low, ci_high, p_value)
            """,
        },
    )
    page = build_report(serving, tmp_path / "site").read_text()
    figure = figure_html(page, "probe-model-comparison")
    assert 'data-state="ok"' in figure
    assert re.search(r">model-x − model-y</tspan><tspan[^>]*>runs run-a − run-c</tspan>", figure)
    assert "<title>model-x − model-y · runs run-a − run-c · IT: -0.080 (p = 0.002)</title>" in (
        figure
    )
    assert "No data yet" in figure_html(page, "probe-delta")


def test_rater_coefficients_figure(tmp_path):
    serving = serving_file(
        tmp_path / "serving.duckdb",
        {
            "rater_agreement_coefficients": """
                select * from (values
                    ('models_as_raters_en', 'fleiss_kappa', 'unweighted', 0.41, 0.02, 0.37, 0.45,
                     60, 6, 4),
                    ('models_as_raters_en', 'krippendorff_alpha', 'ordinal', 0.40, 0.02,
                     0.36, 0.44, 60, 6, 4),
                    ('reference_examples', 'fleiss_kappa', 'unweighted', 0.05, 0.1, -0.2, 0.3,
                     8, 6, 4)
                ) as t(dataset, coefficient, weights, estimate, std_error, ci_low, ci_high,
                       n_items, n_raters, n_categories)
            """
        },
    )
    figure = figure_html(build_report(serving, tmp_path / "site").read_text(), "rater-coefficients")
    assert 'data-state="ok"' in figure
    # the legend names the weights, where there are any
    assert ">krippendorff_alpha (ordinal)</text>" in figure and ">fleiss_kappa</text>" in figure
    assert "<title>models_as_raters_en · fleiss_kappa: 0.410 (60 items)</title>" in figure
    assert "<title>reference_examples · fleiss_kappa: [-0.200, 0.300]</title>" in figure


def test_quality_sections_from_their_tables(tmp_path):
    n_rows = QUARANTINE_SHOWN + 7
    serving = serving_file(
        tmp_path / "serving.duckdb",
        {
            "dq_quarantine": f"""
                select case when i % 3 = 0 then 'rater' else 'mcq' end as study,
                       'answers.csv' as source, i as source_row, 'key<' || i as record_key,
                       'answer' as column_name, case when i = 1 then null else ' x ' end
                       as value, case when i % 2 = 0 then 'invalid' else 'empty' end as reason
                from range(1, {n_rows + 1}) as t(i)
            """,
            "dq_test_failures": """
                select * from (values ('not_null_x_id', 'x', 'id', 'fail', 3),
                                      ('unique_y_id', 'y', '', 'error', 0))
                as t(test_name, model_name, column_name, status, n_failures)
            """,
        },
    )
    quality = tmp_path / "quality"
    index = quality / DOCS_SITE / "index.html"
    index.parent.mkdir(parents=True)
    index.write_text("<html></html>")
    site = tmp_path / "report"
    page = build_report(serving, site, quality).read_text(encoding="utf-8")
    counts = page[page.index('id="quarantine-counts"') :].split("</table>")[0]
    with duckdb.connect(str(serving), read_only=True) as con:
        expected = con.execute(
            "select study, reason, count(*) from marts.dq_quarantine group by all"
        ).fetchall()
    for study, reason, n in expected:
        assert f'<td>{study}</td><td>{reason}</td><td class="n">{n}</td>' in counts
    listed = page[page.index('id="quarantine-rows"') :].split("</table>")[0]
    assert listed.count("<tr>") == 1 + QUARANTINE_SHOWN
    assert "key&lt;" in listed and "key<" not in listed  # escaped
    assert f"and {n_rows - QUARANTINE_SHOWN} more rows" in page
    failing = page[page.index('id="failing-tests"') :].split("</table>")[0]
    # every test listed did not pass, an errored test (no failing rows counted) too
    assert "2 dbt tests did not pass" in page
    assert "<td><code>not_null_x_id</code></td><td>x</td><td>id</td><td>fail</td>" in failing
    assert "<td><code>unique_y_id</code></td><td>y</td><td></td><td>error</td>" in failing
    href = re.search(r'id="quality-docs" href="([^"]+)"', page).group(1)
    assert not href.startswith("/") and (site / href).resolve() == index.resolve()


def test_report_builds_with_no_network(tmp_path):
    """vl-convert carries its Vega runtime: nothing is fetched while the charts render."""
    if not shutil.which("unshare") or subprocess.run(["unshare", "--net", "true"]).returncode:
        pytest.fail(
            "`unshare --net` cannot make a network namespace here: run as root", pytrace=False
        )
    serving = serving_file(
        tmp_path / "serving.duckdb",
        {"probe_paired_summary": PROBE_SUMMARY},
    )
    done = subprocess.run(
        ["unshare", "--net", sys.executable, "-m", "concord_io.report"]
        + ["--serving", str(serving), "--out", str(tmp_path / "site")]
        + ["--quality", str(tmp_path / "quality")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    figure = figure_html((tmp_path / "site" / "index.html").read_text(), "probe-delta")
    assert 'data-state="ok"' in figure and "<svg" in figure


def test_absent_or_empty_marts_give_notes_not_errors(tmp_path):
    serving = tmp_path / "serving.duckdb"
    with duckdb.connect(str(serving)) as con:
        con.execute("create schema marts")
        # one study's mart present but empty, the others absent
        con.execute(
            "create table marts.mcq_agreement_summary (model varchar, run varchar, "
            "agreement_pct double, agreement_ci_low double, agreement_ci_high double)"
        )
        con.execute(
            "create table marts.probe_paired_summary (run_id varchar, group_name varchar, "
            "baseline_group varchar, mean_delta double, ci_low double, ci_high double)"
        )
    figures = parse(build_report(serving, tmp_path / "site").read_text()).figures
    assert set(figures) == set(FIGURES)
    for key, fig in figures.items():
        assert fig["data-state"] == "empty" and "No data yet" in fig["text"], key
    assert "has no rows yet" in figures["mcq-agreement"]["text"]
    assert "not published yet" in figures["rater-kappa"]["text"]
    # no probe run yet: the note says what to install and run (make build installs no torch)
    probe_note = " ".join(figures["probe-delta"]["text"].split())
    assert "`make probe-install`" in probe_note and "`concord probe demo`" in probe_note
    page = (tmp_path / "site" / "index.html").read_text()
    assert "marts.dq_quarantine is not published yet" in page
    assert "No list of failing dbt tests is published" in page
    assert 'id="quality-docs"' not in page


@pytest.mark.browser
def test_report_renders_in_headless_chromium(report):
    command = chromium_offline()
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
    for key in FIGURES:
        fig = page.figures[key]
        if key in OPTIONAL and fig["data-state"] == "empty":
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
