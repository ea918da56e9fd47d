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
import scipy.stats
import yaml
from browser import chromium_offline

from concord_io.project import PROJECT_ROOT
from concord_io.quality import DOCS_SITE
from concord_io.report import STUDIES, build_report, charts
from concord_io.report.sections import QUARANTINE_SHOWN
from concord_io.serving.publish import CURRENT_DB, publish

ARTIFACTS = PROJECT_ROOT / "tests" / "artifacts"
FIGURES = {fig.key: study for study, _, figures in STUDIES for fig in figures}
# the shipped seeds have no probe run, and the coefficient mart comes with the rater work:
# these figures may be notes on the shipped build (synthetic marts below draw them)
# the shipped answers are letters without gold: accuracy and calibration are notes there
# (tests/python/test_mcq_answer_sources.py draws them from sample logs)
OPTIONAL = {
    "probe-delta",
    "probe-model-comparison",
    "rater-coefficients",
    "mcq-accuracy",
    "mcq-reliability",
    "mcq-accuracy-agreement",
}


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
    """The demo's report, every figure's spec checked against Vega-Lite's schema as it is
    made (a build does not check them: charts.VALIDATE_SPECS)."""
    work = tmp_path_factory.mktemp("report")
    publish(warehouse, work / "serving", warehouse.parent / "target" / "manifest.json")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(charts, "VALIDATE_SPECS", True)
        return build_report(work / "serving" / CURRENT_DB, work / "site")


def test_a_spec_against_vega_lites_schema_is_refused_when_checked(monkeypatch):
    import altair as alt
    import pandas as pd

    bad = alt.Chart(pd.DataFrame({"x": [1]})).mark_point().encode(x=alt.X("x:Q", bin="often"))
    charts.finalise(bad)  # a build does not check
    monkeypatch.setattr(charts, "VALIDATE_SPECS", True)
    with pytest.raises(Exception, match="bin"):
        charts.finalise(bad)


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


def shown_with_rows(report: Path, marts, key: str, query: str) -> tuple[str, list[tuple]]:
    """The report's figure ``key`` and the mart rows (``query``) it should show."""
    return figure_html(report.read_text(encoding="utf-8"), key), marts.execute(query).fetchall()


def n_marks(figure: str) -> int:
    """The data marks a figure says it draws."""
    return int(re.search(r'data-marks="(\d+)"', figure).group(1))


def run_label(model: str, revision: str | None) -> str:
    return model if revision is None else f"{model} @ {revision}"


@pytest.mark.parametrize(
    ("key", "estimate", "low", "high"),
    [
        ("mcq-agreement", "full_agreement_pct", "full_agreement_ci_low", "full_agreement_ci_high"),
        (
            "mcq-pairwise-agreement",
            "mean_pairwise_agreement_pct",
            "mean_pairwise_agreement_ci_low",
            "mean_pairwise_agreement_ci_high",
        ),
        ("mcq-languages-kappa", "fleiss_kappa", "fleiss_kappa_ci_low", "fleiss_kappa_ci_high"),
    ],
)
def test_headline_figures_show_the_mart_values(report, marts, key, estimate, low, high):
    """Full agreement, mean pairwise agreement and Fleiss' kappa: each run's value with its
    interval, in its task's panel, a dot per variant in the model's row."""
    figure, rows = shown_with_rows(
        report,
        marts,
        key,
        f"select task, model, model_revision, variant, {estimate}, {low}, {high}, "
        "n_languages, n_complete from marts.mcq_agreement_summary_v2",
    )
    assert {variant for _, _, _, variant, *_ in rows} == {"base", "shuffled"}
    for task, model, revision, variant, value, lo, hi, n_languages, n in rows:
        name = f"{task} · {run_label(model, revision)} · {variant}"
        over = f" ({n_languages} languages, {n} items)"  # what the figure is over
        assert figure.count(f"<title>{name}: {value:.3f}{over}</title>") == 1, name
        assert figure.count(f"<title>{name}: [{lo:.3f}, {hi:.3f}]{over}</title>") == 1, name
    assert n_marks(figure) == 2 * len(rows)


def test_disagreement_types_split_each_runs_items(report, marts):
    figure, rows = shown_with_rows(
        report,
        marts,
        "mcq-disagreement-types",
        "select task, model, model_revision, variant, n_items, n_full_agreement, "
        "n_one_diverged, n_majority, n_no_majority, n_incomplete "
        "from marts.mcq_agreement_summary_v2",
    )
    kinds = ("full_agreement", "one_diverged", "majority", "no_majority", "incomplete")
    for task, model, revision, variant, n_items, *counts in rows:
        assert sum(counts) == n_items
        for kind, n in zip(kinds, counts, strict=True):
            share = 100 * n / n_items
            title = f"<title>{task} · {run_label(model, revision)} ({variant}) · {kind}: "
            assert f"{title}{share:.1f} %</title>" in figure, title


def test_order_effect_shows_each_variant_against_the_baseline(report, marts):
    """Per language, the share of items answered with the same option under the variant as
    under the baseline, with its interval and both runs' full agreement."""
    figure, rows = shown_with_rows(
        report,
        marts,
        "mcq-order-effect",
        "select task, model, model_revision, variant, baseline_variant, language, "
        "same_option_pct, ci_low, ci_high, n_paired, full_agreement_pct, "
        "full_agreement_pct_baseline from marts.mcq_order_effect_v2",
    )
    assert len(rows) >= 6 and {r[3] for r in rows} == {"shuffled"}
    for task, model, revision, variant, baseline, language, pct, low, high, n, full, base in rows:
        assert (
            f"<title>{task} · {variant} vs {baseline} · {run_label(model, revision)} · "
            f"{language}: same option on {pct:.1f} % of {n} items [{low:.1f}, {high:.1f}]; "
            f"full agreement {base:.1f} → {full:.1f} %</title>"
        ) in figure
    assert n_marks(figure) == len(rows)


def test_language_pairs_show_each_pairs_kappa_with_its_interval(report, marts):
    figure, rows = shown_with_rows(
        report,
        marts,
        "mcq-language-pairs",
        "select task, model, model_revision, variant, language_a, language_b, cohen_kappa, "
        "cohen_kappa_ci_low, cohen_kappa_ci_high, n_items "
        "from marts.mcq_language_pair_consistency where cohen_kappa is not null",
    )
    assert len(rows) >= 3
    for task, model, revision, variant, a, b, kappa, low, high, n in rows:
        label = f"{run_label(model, revision)} ({variant})"
        title = f"<title>{task} · {label} · {a}–{b}: κ = {kappa:.3f} [{low:.3f}, {high:.3f}]"
        # both cells of the pair, either side of the diagonal
        assert figure.count(f"{title} ({n} items)</title>") == 2, title


def test_per_language_figures_show_the_mart_values(report, marts):
    """Choice entropy and the departures from the majority: one cell per task, variant,
    model and language, with the estimate and its interval."""
    page = report.read_text(encoding="utf-8")
    entropy = figure_html(page, "mcq-choice-entropy")
    rows = marts.execute(
        "select task, variant, model, model_revision, language, entropy_bits, ci_low, ci_high "
        "from marts.mcq_choice_entropy_v2"
    ).fetchall()
    for task, variant, model, revision, language, bits, low, high in rows:
        assert (
            f"<title>{task} · {variant} · {run_label(model, revision)} · {language}: "
            f"{bits:.3f} bits [{low:.3f}, {high:.3f}]</title>"
        ) in entropy
    assert n_marks(entropy) == len(rows)
    departures = figure_html(page, "mcq-language-departures")
    rows = marts.execute(
        "select task, variant, model, model_revision, language, departs_pct, departs_ci_low, "
        "departs_ci_high, n_items from marts.mcq_language_departures"
    ).fetchall()
    for task, variant, model, revision, language, pct, low, high, n in rows:
        assert (
            f"<title>{task} · {variant} · {run_label(model, revision)} · {language}: departs "
            f"on {pct:.1f} % of {n} items [{low:.1f}, {high:.1f}]</title>"
        ) in departures


def test_option_figure_shows_the_pooled_shares(report, marts):
    """Option and position shares per language, pooled over the models of each task and
    variant; under the shuffled variant the two differ."""
    figure, rows = shown_with_rows(
        report,
        marts,
        "mcq-option-frequency",
        "select task, variant, language, option, sum(n_valid), "
        "100.0 * sum(n_position) / sum(n_valid), 100.0 * sum(n_option) / sum(n_valid) "
        "from marts.mcq_option_frequency_v2 group by all",
    )
    assert any(position != option for *_, position, option in rows)
    for task, variant, language, option, n_valid, position, chosen in rows:
        for measure, pct in (("position shown", position), ("option chosen", chosen)):
            assert (
                f"<title>{task} · {variant} · by the {measure} · {language} · {option}: "
                f"{pct:.1f} % of {n_valid} valid answers</title>"
            ) in figure
    assert n_marks(figure) == 2 * len(rows)


def figure_html(page: str, key: str) -> str:
    return page[page.index(f'id="fig-{key}"') :].split("</figure>")[0]


def test_every_data_mark_has_its_hover_text(report, marts):
    """Static SVG has no tooltip handler: each data mark carries an SVG <title>."""
    page = report.read_text(encoding="utf-8")
    for key in FIGURES:
        figure = figure_html(page, key)
        marks = re.findall(r'<(\w+)[^>]*class="mark"[^>]*>(<title>[^<]+</title>)?', figure)
        assert all(title for _, title in marks), key
        assert len(marks) == n_marks(figure), key
    kendall = figure_html(page, "ranking-kendall-matrix")
    for rater, other, tau in marts.execute(
        "select rater_id, other_rater_id, mean_tau_b from marts.ranking_pair_kendall"
    ).fetchall():
        assert f"<title>{rater} × {other}: {tau:.2f}</title>" in kendall
    assert "<title>xcloze · GPT-4o (shuffled) · full_agreement: " in figure_html(
        page, "mcq-disagreement-types"
    )


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


def test_languages_sorted_by_tag(report):
    """The marts carry no order of languages: every figure lists the study's languages (the
    dbt var) by tag, once per panel."""
    project = yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text(encoding="utf-8"))
    languages = sorted(project["vars"]["mcq_languages"])
    page = report.read_text(encoding="utf-8")
    for key, panels in (("mcq-choice-entropy", 2), ("mcq-option-frequency", 4)):
        labels = re.findall(r">([^<]+)</text>", figure_html(page, key))
        assert [x for x in labels if x in languages] == languages * panels, key


def test_quarantine_section_matches_the_mart(report, marts):
    page = report.read_text(encoding="utf-8")
    (n,) = marts.execute("select count(*) from marts.dq_quarantine").fetchone()
    if n == 0:
        assert 'class="all-clear" data-section="quarantine"' in page
    else:
        assert f"{n} input records were set aside" in page


def test_paired_comparisons_show_the_marts_rows_with_their_languages_and_items(report, marts):
    """The cross-lingual study's paired comparisons: a row per pair of runs of a task and
    variant, as marts.mcq_model_comparison holds it (its languages and items beside each
    figure, the difference with its interval, the discordant items, McNemar and Holm); the
    accuracy comparisons, none in the demo (no gold), say so."""
    page = report.read_text(encoding="utf-8")
    table = page[page.index('id="mcq-comparisons-table"') :]
    table = table[: table.index("</table>")]
    rows = marts.execute(
        "select task, variant, model_a, model_b, n_languages, n_items, full_agreement_pct_a, "
        "full_agreement_pct_b, difference_pp, ci_low, ci_high, n_only_a, n_only_b, p_value, "
        "p_value_holm from marts.mcq_model_comparison"
    ).fetchall()
    assert table.count("<tr>") == len(rows) + 1 and len(rows) > 1
    for task, variant, a, b, n_lang, n, pa, pb, diff, low, high, only_a, only_b, p, holm in rows:
        cells = (
            f"<td>{task}</td><td>{variant}</td><td>{a}</td><td>{b}</td><td>{n_lang}</td>"
            f"<td>{n}</td><td>{pa:.1f}</td><td>{pb:.1f}</td><td>{diff:.1f}</td>"
            f"<td>[{low:.1f}, {high:.1f}]</td><td>{only_a}</td><td>{only_b}</td>"
            f"<td>{p:.4f}</td><td>{holm:.4f}</td>"
        )
        assert cells in table, cells
    assert "95% paired bootstrap interval" in page
    accuracy = page[page.index('data-section="accuracy-comparisons"') :]
    assert accuracy.startswith('data-section="accuracy-comparisons" data-state="empty">No two')


def test_the_data_notice_comes_first(report):
    page = report.read_text(encoding="utf-8")
    notice = page.index('id="data-notice"')
    assert notice < page.index("<figure") and notice < page.index("<section")
    text = page[notice : page.index("</div>", notice)]
    # the shipped build: its eight answer files and the rankings, recognised by content
    assert 'data-shipped="8"' in text and "reconstructed" in text and "synthetic" in text
    assert "GPT-4o, LLaMA 3.1 70B, LLaMA 3.2, Qwen2.5 14B, XLM-R large, mBERT" in text


def test_the_not_findings_notice_only_while_shipped_data_is_in_the_file(tmp_path):
    """No row in dq_shipped_inputs (the user's own data): no notice, the credit stays; one
    shipped run: the notice names its model; the mart not published (an older file): the
    notice, saying it cannot tell."""
    columns = "study, run_id, model"
    for name in ("own", "one", "older"):
        (tmp_path / name).mkdir()
    own = built_page(
        tmp_path / "own",
        {"dq_shipped_inputs": f"select * from (values ('mcq', 'r', 'm')) as t({columns}) limit 0"},
    )
    assert 'id="data-notice"' not in own and "not findings" not in own
    assert 'id="data-credit"' in own and "every figure is drawn from your own data" in " ".join(
        own.split()
    )
    one = built_page(
        tmp_path / "one",
        {"dq_shipped_inputs": f"select * from (values ('mcq', 'r', 'GPT-4o')) as t({columns})"},
    )
    notice = one[one.index('id="data-notice"') : one.index("</div>", one.index('id="data-notice"'))]
    notice = " ".join(notice.split())
    assert 'data-shipped="1"' in notice and "The answers of 1 run (GPT-4o)" in notice
    assert "synthetic" not in notice and "not findings about the" in notice
    older = built_page(tmp_path / "older", {})
    assert 'data-shipped="unknown"' in older and "where this file holds them" in " ".join(
        older.split()
    )


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


def built_page(tmp_path: Path, tables: dict[str, str]) -> str:
    """The report page built from a serving file holding only ``tables``."""
    serving = serving_file(tmp_path / "serving.duckdb", tables)
    return build_report(serving, tmp_path / "site").read_text(encoding="utf-8")


def test_a_figure_is_drawn_again_only_when_its_spec_changed(report, tmp_path, monkeypatch):
    """The report keeps each figure's drawing by its spec (charts.DrawnSvgs): the same
    serving file draws nothing again and gives the same page; a figure whose rows changed
    is drawn again, alone, and the drawing it replaced is removed."""
    site = tmp_path / "site"
    shutil.copytree(report.parent, site)
    kept = sorted(p.name for p in (site / ".drawn").glob("*.svg"))
    assert len(kept) >= 10  # every figure with data
    draw = charts._drawn
    drawn: list[dict] = []

    def counted(spec: dict) -> str:
        drawn.append(spec)
        return draw(spec)

    monkeypatch.setattr(charts, "_drawn", counted)
    serving = report.parent.parent / "serving" / CURRENT_DB
    page = build_report(serving, site).read_text(encoding="utf-8")
    assert drawn == [] and page == report.read_text(encoding="utf-8")
    assert sorted(p.name for p in (site / ".drawn").glob("*.svg")) == kept

    (tmp_path / "a").mkdir()
    changed = built_page(tmp_path / "a", {"probe_paired_summary": PROBE_SUMMARY})
    (tmp_path / "b").mkdir()
    shutil.copytree(tmp_path / "a" / "site", tmp_path / "b" / "site")
    before = {p.name for p in (tmp_path / "b" / "site" / ".drawn").glob("*.svg")}
    drawn.clear()
    again = built_page(
        tmp_path / "b", {"probe_paired_summary": PROBE_SUMMARY.replace("-0.05", "-0.06")}
    )
    # the probe's delta figure, drawn again: one drawing replaced
    assert len(drawn) == 1 and "IT: -0.060" in again and "IT: -0.050" in changed
    after = {p.name for p in (tmp_path / "b" / "site" / ".drawn").glob("*.svg")}
    assert len(after - before) == 1 and len(before - after) == 1


def test_figures_drawn_ahead_from_the_build_make_the_published_versions_page(
    report, warehouse, tmp_path
):
    """`concord build` draws the figures from the build's marts while its checkpoint runs
    (``figures_from``), and writes the page from the version publish sealed only when told:
    the same page as one drawn from that version. Drawn from another build's file, they are
    drawn again from the version; not told, nothing is written."""
    serving = report.parent.parent / "serving" / CURRENT_DB

    def page_of(path: Path | None) -> str:
        assert path is not None
        return path.read_text(encoding="utf-8")

    expected = page_of(report)
    ids = re.findall(r' id="([^"]+)"', expected)  # one page of drawings made apart
    assert ids and len(ids) == len(set(ids))
    ahead = build_report(serving, tmp_path / "a", figures_from=warehouse, told=lambda: True)
    assert page_of(ahead) == expected
    other = serving_file(tmp_path / "other.duckdb", {"probe_paired_summary": PROBE_SUMMARY})
    page = build_report(serving, tmp_path / "b", figures_from=other, told=lambda: True)
    assert page_of(page) == expected
    assert build_report(serving, tmp_path / "c", figures_from=warehouse, told=lambda: False) is None
    assert not (tmp_path / "c" / "index.html").exists()


def panel_header(model: str, run_id: str) -> re.Pattern:
    """A panel's header: the model, then the run on a second line."""
    return re.compile(f">{re.escape(model)}</tspan><tspan[^>]*>run {re.escape(run_id)}</tspan>")


def drawn_figure(tmp_path: Path, key: str, tables: dict[str, str]) -> tuple[str, str]:
    """The report page built from ``tables``, and its figure ``key``, drawn (not a note)."""
    page = built_page(tmp_path, tables)
    figure = figure_html(page, key)
    assert 'data-state="ok"' in figure
    return page, figure


def test_probe_figure_names_run_and_model(tmp_path):
    _, figure = drawn_figure(
        tmp_path,
        "probe-delta",
        {
            "probe_paired_summary": PROBE_SUMMARY,
            "probe_runs": "select * from (values ('run-a', 'sshleifer/tiny-gpt2')) "
            "as t(run_id, model)",
        },
    )
    # one panel per run, headed by its model and run
    assert panel_header("sshleifer/tiny-gpt2", "run-a").search(figure)
    assert panel_header("model not published", "run-b").search(figure)
    assert "<title>sshleifer/tiny-gpt2 · run run-a · IT: -0.050</title>" in figure
    assert "<title>sshleifer/tiny-gpt2 · run run-a · IT: [-0.090, -0.010]</title>" in figure
    assert "vs US" in figure


def test_text_from_the_marts_is_escaped_in_charts(tmp_path):
    """Names come from data: inside an SVG they stay text, never markup."""
    page, figure = drawn_figure(
        tmp_path,
        "probe-delta",
        {
            "probe_paired_summary": """
                select '<script>alert(1)</script>' as run_id, 'A&B "q"' as group_name,
                       'US' as baseline_group, 0.1 as mean_delta, 0.0 as ci_low, 0.2 as ci_high
            """
        },
    )
    assert "<script>alert" not in page
    assert "run &lt;script&gt;alert(1)&lt;/script&gt;" in figure
    assert "A&amp;B" in figure


def test_probe_models_side_by_side(tmp_path):
    """Where the summary carries each run's model, every model and run gets its panel."""
    _, figure = drawn_figure(
        tmp_path,
        "probe-delta",
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
    assert panel_header("model-x", "run-a").search(figure)
    assert panel_header("model-y", "run-c").search(figure)
    assert "<title>model-y · run run-c · AR: 0.000</title>" in figure
    assert figure.count("<svg") == 1  # side by side in one chart, on one shared axis


def test_probe_model_comparison(tmp_path):
    page, figure = drawn_figure(
        tmp_path,
        "probe-model-comparison",
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
    assert re.search(r">model-x − model-y</tspan><tspan[^>]*>runs run-a − run-c</tspan>", figure)
    assert "<title>model-x − model-y · runs run-a − run-c · IT: -0.080 (p = 0.002)</title>" in (
        figure
    )
    assert "No data yet" in figure_html(page, "probe-delta")


# Five runs over two tasks of 40 languages each: a second revision of a model, a task with
# two options, a variant run of one model only
MANY_RUNS = """
    select * from (values
        ('model-x', null, 'base', 'xcloze', 4), ('model-x', null, 'shuffled', 'xcloze', 4),
        ('model-y', 'v2', 'base', 'xcloze', 4), ('model-x', null, 'base', 'xcopa', 2),
        ('model-y', 'v2', 'base', 'xcopa', 2)
    ) as t(model, model_revision, variant, task, n_options)
"""
FORTY = "select 'l' || lpad(i::varchar, 2, '0') as language, i from range(40) as t(i)"
MANY_LANGUAGES = {
    "mcq_agreement_summary_v2": f"""
        select model, model_revision, variant, task, 60 as n_items, 40 as n_languages,
            56 as n_complete, 10 + n_options as n_full_agreement, 20 as n_one_diverged,
            10 as n_majority,
            16 - n_options as n_no_majority, 4 as n_incomplete,
            100.0 * (10 + n_options) / 56 as full_agreement_pct,
            100.0 * (10 + n_options) / 56 - 9 as full_agreement_ci_low,
            100.0 * (10 + n_options) / 56 + 9 as full_agreement_ci_high,
            50.0 + n_options as mean_pairwise_agreement_pct,
            45.0 + n_options as mean_pairwise_agreement_ci_low,
            55.0 + n_options as mean_pairwise_agreement_ci_high,
            0.1 * n_options as fleiss_kappa, 0.1 * n_options - 0.1 as fleiss_kappa_ci_low,
            0.1 * n_options + 0.1 as fleiss_kappa_ci_high
        from ({MANY_RUNS})""",
    "mcq_domain_disagreement_v2": f"""
        select model, model_revision, variant, task, 'domain ' || d as domain, 5 as n_items,
            (d + n_options) % 6 as n_disagree
        from ({MANY_RUNS}) cross join range(3) as t(d)""",
    "mcq_option_frequency_v2": f"""
        select model, model_revision, variant, task, language, chr(65 + o::integer) as option,
            o + 1 as option_position, 1 + (i + o) % 7 as n_option,
            1 + (i + 2 * o) % 7 as n_position,
            sum(1 + (i + o) % 7) over (partition by model, variant, task, language) as n_valid
        from ({MANY_RUNS}) cross join ({FORTY}) cross join range(4) as t(o) where o < n_options""",
    "mcq_choice_entropy_v2": f"""
        select model, model_revision, variant, task, language,
            log2(n_options) * (0.5 + i / 80) as entropy_bits, 0.5 + i / 80 as entropy_norm,
            log2(n_options) * (0.4 + i / 80) as ci_low, log2(n_options) * (0.6 + i / 80) as ci_high
        from ({MANY_RUNS}) cross join ({FORTY})""",
    "mcq_language_pair_consistency": f"""
        select model, model_revision, variant, task, a.language as language_a,
            b.language as language_b, 60 as n_items, (a.i + b.i) / 80 - 0.2 as cohen_kappa,
            (a.i + b.i) / 80 - 0.3 as cohen_kappa_ci_low,
            (a.i + b.i) / 80 - 0.1 as cohen_kappa_ci_high
        from ({MANY_RUNS}) cross join ({FORTY}) as a join ({FORTY}) as b
            on a.language < b.language""",
    "mcq_language_departures": f"""
        select model, model_revision, variant, task, language, 56 as n_items,
            100.0 * i / 40 as departs_pct, 100.0 * i / 40 - 5 as departs_ci_low,
            100.0 * i / 40 + 5 as departs_ci_high
        from ({MANY_RUNS}) cross join ({FORTY})""",
    "mcq_order_effect_v2": f"""
        select model, model_revision, variant, task, 'base' as baseline_variant, language,
            2.5 * i as same_option_pct, 2.5 * i - 8 as ci_low, 2.5 * i + 8 as ci_high,
            60 as n_paired, 40.0 as full_agreement_pct, 45.0 as full_agreement_pct_baseline
        from ({MANY_RUNS}) cross join ({FORTY}) where variant <> 'base'""",
}


def test_cross_lingual_figures_at_40_languages_and_two_tasks(tmp_path):
    """Any number of languages, tasks and variants, from the version-2 marts alone: one
    panel per task (and variant), one cell per language, every figure drawn."""
    page = built_page(tmp_path, MANY_LANGUAGES)
    mcq = [key for key, study in FIGURES.items() if study == "mcq"]
    figures = parse(page).figures
    for key in mcq:
        assert figures[key]["data-state"] == "ok", (key, figures[key]["text"])

    def marks(key: str) -> int:
        return int(figures[key]["data-marks"])

    assert marks("mcq-agreement") == 2 * 5 and marks("mcq-languages-kappa") == 2 * 5
    assert marks("mcq-disagreement-types") == 5 * 5
    assert marks("mcq-choice-entropy") == marks("mcq-language-departures") == 5 * 40
    assert marks("mcq-language-pairs") == 5 * 40 * 39  # both sides of the diagonal
    assert marks("mcq-option-frequency") == 2 * 40 * (4 + 4 + 2)  # pooled over the models
    assert marks("mcq-order-effect") == 40
    agreement = figure_html(page, "mcq-agreement")
    assert ">xcloze</text>" in agreement and ">xcopa</text>" in agreement
    assert (
        "<title>xcopa · model-y @ v2 · base: 21.429 (40 languages, 56 items)</title>" in agreement
    )
    assert (
        "<title>xcloze · model-x · shuffled: [16.000, 34.000] (40 languages, 56 items)</title>"
        in agreement
    )
    entropy = figure_html(page, "mcq-choice-entropy")
    for panel in ("xcloze · base", "xcloze · shuffled", "xcopa · base"):
        assert f">{panel}</text>" in entropy
    assert "<title>xcopa · base · model-x · l38: 0.975 bits [0.875, 1.075]</title>" in entropy
    pairs = figure_html(page, "mcq-language-pairs")
    assert pairs.count("<title>xcopa · model-y @ v2 (base) · l00–l38: κ = 0.275") == 2
    option = figure_html(page, "mcq-option-frequency")
    assert ">xcopa · base · by the position shown</text>" in option
    assert "<title>xcopa · base · by the option chosen · l07 · B: " in option
    order = figure_html(page, "mcq-order-effect")
    assert "<title>xcloze · shuffled vs base · model-x · l04: same option on 10.0 % of 60 " in order
    # 40 columns: narrow cells whose values are in the hover text, not written in the cell
    assert not re.search(r">-?0\.\d\d</text>", pairs)


def test_rater_coefficients_figure(tmp_path):
    _, figure = drawn_figure(
        tmp_path,
        "rater-coefficients",
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
            "create table marts.mcq_agreement_summary_v2 (model varchar, model_revision "
            "varchar, variant varchar, task varchar, full_agreement_pct double, "
            "full_agreement_ci_low double, full_agreement_ci_high double, n_languages integer, "
            "n_complete integer)"
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


ACCURACY_MARTS = {
    "mcq_accuracy": """
        select * from (values
            ('xcopa', 'm-a', null, 'base', 'en', 100, 61.0, 4.9, 58.0, 4.96, 0.51, 0.08),
            ('xcopa', 'm-a', null, 'base', 'it', 100, 55.0, 5.0, null, null, null, null),
            ('xcopa', 'm-b', 'v2', 'base', 'en', 100, 70.0, 4.6, 71.0, 4.56, 0.40, 0.05)
        ) as t(task, model, model_revision, variant, language, n_items, accuracy_pct,
            accuracy_std_error, accuracy_norm_pct, accuracy_norm_std_error, brier_score,
            expected_calibration_error)
    """,
    "mcq_calibration_bins_v2": """
        select * from (values
            ('xcopa', 'm-a', null, 'base', 'en', 'summed', 5, 0.5, 0.6, 40, 22, 0.55),
            ('xcopa', 'm-a', null, 'base', 'en', 'summed', 8, 0.8, 0.9, 60, 39, 0.85),
            ('xcopa', 'm-a', null, 'base', 'it', 'summed', 8, 0.8, 0.9, 10, 5, 0.81),
            ('xcopa', 'm-a', null, 'base', 'en', 'length_normalised', 8, 0.8, 0.9, 100, 58, 0.8),
            ('xcopa', 'm-b', 'v2', 'base', 'en', 'summed', 9, 0.9, 1.0, 100, 70, 0.95)
        ) as t(task, model, model_revision, variant, language, distribution,
            calibration_bin, bin_low, bin_high, n_items, n_correct, mean_confidence)
    """,
    "model_scorecard_by_variant": """
        select * from (values
            ('xcopa', 'm-a', null, 'base', 58.0, 50.0, 66.0, 40.0, 30.0, 50.0),
            ('xcopa', 'm-c', null, 'base', null, null, null, 80.0, 70.0, 90.0)
        ) as t(task, model, model_revision, variant, accuracy_pct, accuracy_ci_low,
            accuracy_ci_high, full_agreement_pct, full_agreement_ci_low, full_agreement_ci_high)
    """,
}


def test_accuracy_and_calibration_as_the_harness_prints_them(tmp_path):
    """acc and acc_norm with 95 % intervals (estimate ± z·SE, z from scipy) per run and
    language; the reliability diagram
    pooled over a run's languages (m-a's bin 8: en and it summed); accuracy beside full
    agreement for the runs with a gold; the harness's table in fractions to 4 decimals."""
    page = built_page(tmp_path, {k: v.replace("\n", " ") for k, v in ACCURACY_MARTS.items()})
    figures = parse(page).figures
    for key in ("mcq-accuracy", "mcq-reliability", "mcq-accuracy-agreement"):
        assert figures[key]["data-state"] == "ok", (key, figures[key]["text"])
    accuracy = figure_html(page, "mcq-accuracy")
    assert int(figures["mcq-accuracy"]["data-marks"]) == 2 * 5  # a dot and a whisker each
    half = scipy.stats.norm.ppf(0.975) * 4.96
    assert (
        f"<title>xcopa · m-a (base) · en · acc_norm: 58.00 [{58 - half:.2f}, {58 + half:.2f}] "
        "(95 %, n = 100)</title>"
    ) in accuracy
    assert "accuracy (%), 95 % interval" in accuracy
    reliability = figure_html(page, "mcq-reliability")
    assert int(figures["mcq-reliability"]["data-marks"]) == 3  # m-a: bins 5 and 8; m-b: 9
    assert (
        "<title>xcopa · m-a (base) · confidence [0.80, 0.90]: 70 items, mean confidence "
        f"{(60 * 0.85 + 10 * 0.81) / 70:.3f}, accuracy {44 / 70:.3f}</title>"
    ) in reliability
    beside = figure_html(page, "mcq-accuracy-agreement")
    assert int(figures["mcq-accuracy-agreement"]["data-marks"]) == 2 * 2  # m-c has no gold
    assert "<title>m-a (base) · xcopa: [50.000, 66.000]</title>" in beside
    table = page[page.index('id="accuracy-table"') :]
    table = table[: table.index("</table>")]
    assert (
        '<td>xcopa</td><td>m-b @ v2 (base)</td><td>en</td><td class="n">100</td>'
        '<td class="n">0.7000</td><td class="n">0.0460</td><td class="n">0.7100</td>'
        '<td class="n">0.0456</td><td class="n">0.4000</td><td class="n">0.0500</td>'
    ) in table
    assert table.count("<tr>") == 4  # the header and three rows
