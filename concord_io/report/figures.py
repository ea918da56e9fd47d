"""The report's figures: one function per figure, from the published marts to a chart.

Each function reads the marts it needs from the serving file (checking every column it
queries first) and returns an Altair chart (``concord_io.report.charts``); a figure with
nothing to draw raises :class:`NoData`, whose message the page shows in its place.
:data:`STUDIES` lists the figures of each study, in page order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from statistics import NormalDist

import altair as alt
import duckdb
import pandas as pd

from concord_io.report import charts
from concord_io.serving.publish import SCHEMA

# ---------------------------------------------------------------- reading the serving file


class Marts:
    """Read access to the published marts that tolerates absent tables and columns."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.columns: dict[str, set[str]] = {}
        for table, column in con.execute(
            "select table_name, column_name from duckdb_columns() where schema_name = ?",
            [SCHEMA],
        ).fetchall():
            self.columns.setdefault(table, set()).add(column)

    def has(self, table: str, *columns: str) -> bool:
        return table in self.columns and set(columns) <= self.columns[table]

    def rows(self, sql: str, params: Sequence | None = None) -> list[dict]:
        """Rows as dicts; DECIMAL values as floats (a chart spec is JSON, which has no
        decimals, and every figure shows at most 3 decimals)."""
        cursor = self.con.execute(sql, params or [])
        names = [d[0] for d in cursor.description]
        return [
            {n: float(v) if isinstance(v, Decimal) else v for n, v in zip(names, row, strict=True)}
            for row in cursor.fetchall()
        ]


class NoData(Exception):
    """A figure has nothing to draw; the message says why (shown on the page)."""


def need(marts: Marts, table: str, *columns: str) -> None:
    if not marts.has(table, *columns):
        absent = sorted(set(columns) - set(marts.columns.get(table, ())))
        missing = "" if table not in marts.columns else f" (columns {', '.join(absent)})"
        raise NoData(f"marts.{table}{missing} is not published yet")


def _nonempty(rows: list[dict], table: str) -> list[dict]:
    if not rows:
        raise NoData(f"marts.{table} has no rows yet")
    return rows


def _finite(value) -> bool:
    return value is not None and isinstance(value, int | float) and math.isfinite(value)


def fmt(value, digits: int = 1) -> str:
    return "–" if not _finite(value) else f"{value:.{digits}f}"


def _intervals(rows: list[tuple], **extra: list) -> pd.DataFrame:
    """``rows`` of label, estimate, low, high as the frame of :func:`charts.interval_chart`,
    with the hover texts the page has always shown (3 decimals)."""
    frame = pd.DataFrame(rows, columns=["label", "estimate", "low", "high"]).assign(**extra)
    frame["tip_estimate"] = [f"{r.label}: {fmt(r.estimate, 3)}" for r in frame.itertuples()]
    frame["tip_interval"] = [
        f"{r.label}: [{fmt(r.low, 3)}, {fmt(r.high, 3)}]" for r in frame.itertuples()
    ]
    return frame


# ------------------------------------------------------------------------------- figures


@dataclass
class Figure:
    key: str
    title: str
    caption: str
    draw: Callable[[Marts], alt.TopLevelMixin]


# ------------------------------------------------------------ the cross-lingual study
# Every mart of the study is keyed by run (one model revision under one prompt variant) and
# task; where it has languages, one row per language. The figures draw any number of each:
# one panel per task, and per task and variant where each model is a column of the figure.

AGREEMENT_SUMMARY = "mcq_agreement_summary_v2"
ORDER_EFFECT = "mcq_order_effect_v2"
RUN_COLUMNS = ("model", "model_revision", "variant", "task")
# fct_mcq_item_agreement_v2's disagreement types (docs/formulas.md), most agreement first;
# each is a column n_<type> of the summary
MCQ_TYPES = ("full_agreement", "one_diverged", "majority", "no_majority", "incomplete")


def model_label(row: dict) -> str:
    """The model, and its revision where the source records one (two revisions of a model
    are two runs)."""
    revision = row.get("model_revision")
    return row["model"] if not revision else f"{row['model']} @ {revision}"


def run_label(row: dict) -> str:
    return f"{model_label(row)} ({row['variant']})"


def variant_order(m: Marts, variants) -> list[str]:
    """The variants, the baseline first (the one mcq_order_effect_v2 compares the others
    with, where it has rows), then by name."""
    baselines: set[str] = set()
    if m.has(ORDER_EFFECT, "baseline_variant"):
        found = m.rows(f"select distinct baseline_variant from {SCHEMA}.{ORDER_EFFECT}")
        baselines = {r["baseline_variant"] for r in found}
    return sorted(set(variants), key=lambda v: (v not in baselines, v))


def _task_variant_panels(m: Marts, rows: list[dict]) -> list[str]:
    """Each row's panel, ``task · variant``; the rows sorted by task, then variant (the
    baseline first), in place."""
    rank = {v: i for i, v in enumerate(variant_order(m, [r["variant"] for r in rows]))}
    rows.sort(key=lambda r: (r["task"], rank[r["variant"]]))
    return [f"{r['task']} · {r['variant']}" for r in rows]


def _sorted_runs(m: Marts, query: str, value: str) -> tuple[list[dict], list[str]]:
    """The rows of ``query`` (over the agreement summary) and their variants, the baseline
    first; the rows in the order of each model's ``value`` under the first variant, best
    first (a null as 0): by variant, task, value, then model."""
    rows = _nonempty(m.rows(query), AGREEMENT_SUMMARY)
    variants = variant_order(m, [r["variant"] for r in rows])
    rows.sort(
        key=lambda r: (variants.index(r["variant"]), r["task"], -(r[value] or 0), model_label(r))
    )
    return rows, variants


def _per_run(m: Marts, estimate: str, interval: str, x_title: str, **scale) -> alt.TopLevelMixin:
    """One of the summary's headline figures, ``estimate`` with its interval (the columns
    ``<interval>_ci_low`` and ``_ci_high``): a row per model, a dot per variant within it, a
    panel per task."""
    t = AGREEMENT_SUMMARY
    low, high = f"{interval}_ci_low", f"{interval}_ci_high"
    need(m, t, *RUN_COLUMNS, estimate, low, high, "n_languages", "n_complete")
    rows, variants = _sorted_runs(
        m,
        f"select {', '.join(RUN_COLUMNS)}, {estimate} as estimate, {low} as low, "
        f"{high} as high, n_languages, n_complete from {SCHEMA}.{t} "
        f"where {estimate} is not null",
        "estimate",
    )
    frame = _intervals(
        [(model_label(r), r["estimate"], r["low"], r["high"]) for r in rows],
        series=[r["variant"] for r in rows],
        panel=[r["task"] for r in rows],
    )
    # an agreement over 3 languages is not one over 4: each figure says over how many, and
    # over how many complete items
    over = [f" ({r['n_languages']} languages, {r['n_complete']} items)" for r in rows]
    frame["tip_estimate"] = [
        f"{r.panel} · {r.label} · {r.series}: {fmt(r.estimate, 3)}{n}"
        for r, n in zip(frame.itertuples(), over, strict=True)
    ]
    frame["tip_interval"] = [
        f"{r.panel} · {r.label} · {r.series}: [{fmt(r.low, 3)}, {fmt(r.high, 3)}]{n}"
        for r, n in zip(frame.itertuples(), over, strict=True)
    ]
    return charts.interval_chart(
        frame, x_title, color="series", color_order=variants, column="panel", **scale
    )


def fig_agreement(m: Marts) -> alt.TopLevelMixin:
    title = "full agreement across languages (%)"
    return _per_run(m, "full_agreement_pct", "full_agreement", title, domain=(0, 100))


def fig_pairwise_agreement(m: Marts) -> alt.TopLevelMixin:
    title = "mean agreement of two languages (%)"
    return _per_run(
        m, "mean_pairwise_agreement_pct", "mean_pairwise_agreement", title, domain=(0, 100)
    )


def fig_languages_kappa(m: Marts) -> alt.TopLevelMixin:
    title = "Fleiss' kappa, languages as raters (1 = they answer alike, 0 = chance)"
    return _per_run(m, "fleiss_kappa", "fleiss_kappa", title, ref=0.0)


def fig_disagreement_types(m: Marts) -> alt.TopLevelMixin:
    t = AGREEMENT_SUMMARY
    counts = [f"n_{kind}" for kind in MCQ_TYPES]
    need(m, t, *RUN_COLUMNS, "n_items", "full_agreement_pct", *counts)
    rows, _ = _sorted_runs(
        m,
        f"select {', '.join(RUN_COLUMNS)}, n_items, full_agreement_pct, "
        f"{', '.join(counts)} from {SCHEMA}.{t}",
        "full_agreement_pct",
    )
    data = []
    for r in rows:
        label = run_label(r)
        for kind in MCQ_TYPES:
            share = 100 * r[f"n_{kind}"] / r["n_items"] if r["n_items"] else None
            tip = f"{r['task']} · {label} · {kind}: {fmt(share)} %"
            data.append((label, kind, share, r["task"], tip))
    frame = pd.DataFrame(data, columns=["label", "series", "value", "panel", "tip"])
    return charts.stacked_bars(frame, list(MCQ_TYPES), "share of items (%)", column="panel")


def fig_domain_heatmap(m: Marts) -> alt.TopLevelMixin:
    t = "mcq_domain_disagreement_v2"
    need(m, t, *RUN_COLUMNS, "domain", "n_items", "n_disagree")
    rows = _nonempty(
        m.rows(
            f"select {', '.join(RUN_COLUMNS)}, domain, n_items, n_disagree from {SCHEMA}.{t} "
            "order by model, model_revision, domain"
        ),
        t,
    )
    panels = _task_variant_panels(m, rows)
    data = []
    for r, panel in zip(rows, panels, strict=True):
        share = 100 * r["n_disagree"] / r["n_items"] if r["n_items"] else None
        text = f"{r['n_disagree']}/{r['n_items']}"
        model = model_label(r)
        tip = f"{panel} · {model} × {r['domain']}: {text}"
        data.append((model, r["domain"], share, text, panel, tip))
    frame = pd.DataFrame(data, columns=["row", "column", "value", "text", "panel", "tip"])
    return charts.heatmap(
        frame,
        sorted(frame["row"].unique()),
        sorted(frame["column"].unique()),
        (0, 100),
        "items without full agreement / items (colour: %)",
        panel="panel",
    )


def _languages(rows: list[dict], *keys: str) -> list[str]:
    """The languages of ``rows`` (under ``keys``), by tag: the marts carry no other order,
    and a sorted list stays readable at 40 languages."""
    return sorted({r[k] for r in rows for k in keys})


def fig_option_frequency(m: Marts) -> alt.TopLevelMixin:
    """How often each language chooses each option, pooled over the models of a task and
    variant, twice: by the position the option was shown at (a position bias) and by the
    option itself (a preference for its content); the two agree where the variant keeps the
    options in their key order. The colour is the share over the even share (1/number of
    options), so that tasks with different numbers of options read alike."""
    t = "mcq_option_frequency_v2"
    need(m, t, "variant", "task", "language", "option", "option_position", "n_option",
         "n_position", "n_valid")  # fmt: skip
    rows = _nonempty(
        m.rows(
            "select task, variant, language, option, option_position, "
            "100.0 * sum(n_position) / nullif(sum(n_valid), 0) as pct_position, "
            "100.0 * sum(n_option) / nullif(sum(n_valid), 0) as pct_option, "
            "sum(n_valid) as n_valid, count(*) over (partition by task, variant, language) "
            f"as n_options from {SCHEMA}.{t} "
            "group by task, variant, language, option, option_position "
            "order by task, variant, language, option_position, option"
        ),
        t,
    )
    panels = _task_variant_panels(m, rows)
    measures = (("pct_position", "by the position shown"), ("pct_option", "by the option chosen"))
    data = []
    for r, panel in zip(rows, panels, strict=True):
        for column, measure in measures:
            pct = r[column]
            if pct is None:  # no valid answer in the language
                continue
            tip = (
                f"{panel} · {measure} · {r['language']} · {r['option']}: {fmt(pct)} % of "
                f"{r['n_valid']} valid answers"
            )
            data.append((r["language"], r["option"], pct * r["n_options"] / 100,
                         f"{pct:.0f}", f"{panel} · {measure}", tip))  # fmt: skip
    if not data:
        raise NoData(f"marts.{t} has no valid answer yet")
    frame = pd.DataFrame(data, columns=["row", "column", "value", "text", "panel", "tip"])
    return charts.heatmap(
        frame,
        _languages(rows, "language"),
        list(dict.fromkeys(r["option"] for r in rows)),
        (0, 2),
        "share ÷ even share (1 = even; red = chosen more often); cells: % of valid answers",
        diverging=True,
        reverse=True,
        panel="panel",
        per_row=2,
    )


def _per_language_heatmap(
    m: Marts,
    table: str,
    columns: tuple[str, ...],
    cell: Callable[[dict], tuple[object, str, str]],
    domain: tuple[float, float],
    title: str,
    *,
    reverse: bool = False,
) -> alt.TopLevelMixin:
    """A languages × models heatmap per task and variant from ``table`` (one row per run,
    task and language): ``cell(row)`` gives each cell's value, text and tooltip detail."""
    need(m, table, *RUN_COLUMNS, "language", *columns)
    rows = _nonempty(
        m.rows(
            f"select {', '.join((*RUN_COLUMNS, 'language', *columns))} from {SCHEMA}.{table} "
            "order by model, model_revision, language"
        ),
        table,
    )
    data = []
    for r, panel in zip(rows, _task_variant_panels(m, rows), strict=True):
        model = model_label(r)
        value, text, detail = cell(r)
        tip = f"{panel} · {model} · {r['language']}: {detail}"
        data.append((r["language"], model, value, text, panel, tip))
    frame = pd.DataFrame(data, columns=["row", "column", "value", "text", "panel", "tip"])
    return charts.heatmap(
        frame,
        _languages(rows, "language"),
        sorted(frame["column"].unique()),
        domain,
        title,
        panel="panel",
        reverse=reverse,
    )


def fig_choice_entropy(m: Marts) -> alt.TopLevelMixin:
    return _per_language_heatmap(
        m,
        "mcq_choice_entropy_v2",
        ("entropy_bits", "entropy_norm", "ci_low", "ci_high"),
        lambda r: (
            r["entropy_norm"],
            fmt(r["entropy_bits"], 2),
            f"{fmt(r['entropy_bits'], 3)} bits [{fmt(r['ci_low'], 3)}, {fmt(r['ci_high'], 3)}]",
        ),
        (0, 1),
        "entropy ÷ its maximum (1 = uniform; dark = concentrated); cells: bits",
        reverse=True,
    )


def fig_language_pairs(m: Marts) -> alt.TopLevelMixin:
    """Cohen's kappa of every pair of languages, one languages × languages matrix per task
    and run: which languages answer alike, at any number of languages."""
    t = "mcq_language_pair_consistency"
    need(m, t, *RUN_COLUMNS, "language_a", "language_b", "cohen_kappa", "cohen_kappa_ci_low",
         "cohen_kappa_ci_high", "n_items")  # fmt: skip
    rows = _nonempty(
        m.rows(
            f"select {', '.join(RUN_COLUMNS)}, language_a, language_b, cohen_kappa, "
            f"cohen_kappa_ci_low, cohen_kappa_ci_high, n_items from {SCHEMA}.{t} "
            "where cohen_kappa is not null"
        ),
        t,
    )
    rank = {v: i for i, v in enumerate(variant_order(m, [r["variant"] for r in rows]))}
    rows.sort(key=lambda r: (r["task"], model_label(r), rank[r["variant"]]))
    data = []
    for r in rows:
        panel = f"{r['task']} · {run_label(r)}"
        pair = f"{r['language_a']}–{r['language_b']}"
        tip = (
            f"{panel} · {pair}: κ = {fmt(r['cohen_kappa'], 3)} "
            f"[{fmt(r['cohen_kappa_ci_low'], 3)}, {fmt(r['cohen_kappa_ci_high'], 3)}] "
            f"({r['n_items']} items)"
        )
        # the mart has each unordered pair once: the matrix shows it on both sides
        for row, column in ((r["language_a"], r["language_b"]), (r["language_b"], r["language_a"])):
            data.append((row, column, r["cohen_kappa"], fmt(r["cohen_kappa"], 2), panel, tip))
    frame = pd.DataFrame(data, columns=["row", "column", "value", "text", "panel", "tip"])
    languages = _languages(rows, "language_a", "language_b")
    return charts.heatmap(
        frame,
        languages,
        languages,
        (-1, 1),
        "Cohen's kappa of two languages (blue = they answer alike, 0 = chance)",
        diverging=True,
        panel="panel",
    )


def fig_language_departures(m: Marts) -> alt.TopLevelMixin:
    """How often each language departs from the majority answer, per task, variant and
    model: the odd languages out at any number of languages."""
    return _per_language_heatmap(
        m,
        "mcq_language_departures",
        ("departs_pct", "departs_ci_low", "departs_ci_high", "n_items"),
        lambda r: (
            r["departs_pct"],
            "–" if r["departs_pct"] is None else f"{r['departs_pct']:.0f}",
            f"departs on {fmt(r['departs_pct'])} % of {r['n_items']} items "
            f"[{fmt(r['departs_ci_low'])}, {fmt(r['departs_ci_high'])}]",
        ),
        (0, 100),
        "items on which the language departs from the majority answer (%)",
    )


def fig_order_effect(m: Marts) -> alt.TopLevelMixin:
    """Each prompt variant against the baseline variant of the same model revision: per
    language, the share of items whose answer points to the same option in both runs."""
    t = ORDER_EFFECT
    need(m, t, *RUN_COLUMNS, "baseline_variant", "language", "same_option_pct", "ci_low",
         "ci_high", "n_paired", "full_agreement_pct", "full_agreement_pct_baseline")  # fmt: skip
    rows = _nonempty(
        m.rows(
            f"select {', '.join(RUN_COLUMNS)}, baseline_variant, language, same_option_pct, "
            "ci_low, ci_high, n_paired, full_agreement_pct, full_agreement_pct_baseline "
            f"from {SCHEMA}.{t} order by model, model_revision, language"
        ),
        f"{t} (it needs a model run under the baseline variant and another)",
    )
    panels = [f"{p} vs {r['baseline_variant']}" for r, p in
              zip(rows, _task_variant_panels(m, rows), strict=True)]  # fmt: skip
    data = []
    for r, panel in zip(rows, panels, strict=True):
        model = model_label(r)
        tip = (
            f"{panel} · {model} · {r['language']}: same option on "
            f"{fmt(r['same_option_pct'])} % of {r['n_paired']} items "
            f"[{fmt(r['ci_low'])}, {fmt(r['ci_high'])}]; full agreement "
            f"{fmt(r['full_agreement_pct_baseline'])} → {fmt(r['full_agreement_pct'])} %"
        )
        text = "–" if r["same_option_pct"] is None else f"{r['same_option_pct']:.0f}"
        data.append((r["language"], model, r["same_option_pct"], text, panel, tip))
    frame = pd.DataFrame(data, columns=["row", "column", "value", "text", "panel", "tip"])
    return charts.heatmap(
        frame,
        _languages(rows, "language"),
        sorted(frame["column"].unique()),
        (0, 100),
        "answers pointing to the same option as under the baseline (%; dark = moved)",
        reverse=True,
        panel="panel",
    )


REFERENCE_MEASURES = (
    "dispersion_index",
    "fleiss_pi",
    "group_disagreement",
    "simpson_index",
    "gini_simpson",
    "entropy_norm_k",
)


def fig_reference_measures(m: Marts) -> alt.TopLevelMixin:
    t = "rater_item_disagreement"
    need(m, t, "dataset", "item_id", *REFERENCE_MEASURES)
    rows = _nonempty(
        m.rows(f"select * from {SCHEMA}.{t} where dataset = 'reference_examples' order by item_id"),
        f"{t} (dataset reference_examples)",
    )
    items = [str(r["item_id"]) for r in rows]
    frame = pd.DataFrame(
        [
            (item, k, r[k], fmt(r[k], 2), f"{item} × {k}: {fmt(r[k], 2)}")
            for item, r in zip(items, rows, strict=True)
            for k in REFERENCE_MEASURES
        ],
        columns=["row", "column", "value", "text", "tip"],
    )
    return charts.heatmap(
        frame,
        items,
        list(REFERENCE_MEASURES),
        (0, 1),
        "each measure on its 0–1 scale: Fleiss' Pi 1 = all raters agree; the others 0 = all agree",
    )


def fig_kappa(m: Marts) -> alt.TopLevelMixin:
    t = "rater_agreement_summary"
    need(m, t, "dataset", "fleiss_kappa", "fleiss_kappa_ci_low", "fleiss_kappa_ci_high")
    rows = _nonempty(
        m.rows(
            f"select dataset, fleiss_kappa, fleiss_kappa_ci_low, fleiss_kappa_ci_high "
            f"from {SCHEMA}.{t} order by dataset"
        ),
        t,
    )
    data = [
        (r["dataset"], r["fleiss_kappa"], r["fleiss_kappa_ci_low"], r["fleiss_kappa_ci_high"])
        for r in rows
    ]
    return charts.interval_chart(_intervals(data), "Fleiss' kappa", ref=0.0)


RATER_COEFFICIENTS = "rater_agreement_coefficients"


def fig_rater_coefficients(m: Marts) -> alt.TopLevelMixin:
    """Every agreement coefficient of each dataset side by side, with its interval."""
    t = RATER_COEFFICIENTS
    need(m, t, "dataset", "coefficient", "weights", "estimate", "ci_low", "ci_high", "n_items")
    rows = _nonempty(
        m.rows(
            f"select dataset, coefficient, weights, estimate, ci_low, ci_high, n_items "
            f"from {SCHEMA}.{t} order by dataset, coefficient, weights"
        ),
        t,
    )
    coefficients = [
        r["coefficient"]
        if r["weights"] in (None, "", "unweighted")
        else f"{r['coefficient']} ({r['weights']})"
        for r in rows
    ]
    frame = _intervals(
        [(r["dataset"], r["estimate"], r["ci_low"], r["ci_high"]) for r in rows],
        coefficient=coefficients,
    )
    frame["tip_estimate"] = [
        f"{r.label} · {r.coefficient}: {fmt(r.estimate, 3)} ({n} items)"
        for r, n in zip(frame.itertuples(), [r["n_items"] for r in rows], strict=True)
    ]
    frame["tip_interval"] = [
        f"{r.label} · {r.coefficient}: [{fmt(r.low, 3)}, {fmt(r.high, 3)}]"
        for r in frame.itertuples()
    ]
    return charts.interval_chart(
        frame,
        "coefficient (1 = perfect agreement, 0 = chance)",
        ref=0.0,
        color="coefficient",
        color_order=list(dict.fromkeys(coefficients)),
    )


def fig_kendall_matrix(m: Marts) -> alt.TopLevelMixin:
    t = "ranking_pair_kendall"
    need(m, t, "rater_id", "other_rater_id", "mean_tau_b")
    rows = _nonempty(m.rows(f"select rater_id, other_rater_id, mean_tau_b from {SCHEMA}.{t}"), t)
    raters = sorted({r["rater_id"] for r in rows} | {r["other_rater_id"] for r in rows})
    # the mart has every ordered pair, the diagonal included
    frame = pd.DataFrame(
        [
            (
                r["rater_id"],
                r["other_rater_id"],
                r["mean_tau_b"],
                fmt(r["mean_tau_b"], 2),
                f"{r['rater_id']} × {r['other_rater_id']}: {fmt(r['mean_tau_b'], 2)}",
            )
            for r in rows
        ],
        columns=["row", "column", "value", "text", "tip"],
    )
    return charts.heatmap(
        frame,
        raters,
        raters,
        (-1, 1),
        "mean Kendall tau-b over scenarios (blue = agree, red = reversed)",
        diverging=True,
    )


# the best-defined consensus first (the reference notes say the position-wise mode is not)
CONSENSUS_PREFERENCE = ("kemeny", "borda")


def fig_controversy(m: Marts) -> alt.TopLevelMixin:
    t = "ranking_scenario_controversy"
    need(m, t, "scenario_id", "method", "mean_tau_b", "kendall_w", "controversy_rank")
    methods = [r["method"] for r in m.rows(f"select distinct method from {SCHEMA}.{t}")]
    if not methods:
        raise NoData(f"marts.{t} has no rows yet")
    method = min(
        methods,
        key=lambda x: (
            CONSENSUS_PREFERENCE.index(x) if x in CONSENSUS_PREFERENCE else 9,
            x,
        ),
    )
    rows = m.rows(
        f"select scenario_id, mean_tau_b, kendall_w from {SCHEMA}.{t} where method = ? "
        "order by controversy_rank, mean_tau_b, scenario_id limit 10",
        [method],
    )
    frame = pd.DataFrame(
        [
            (
                str(r["scenario_id"]),
                r["mean_tau_b"],
                f"W = {fmt(r['kendall_w'], 2)}",
                f"{r['scenario_id']}: {fmt(r['mean_tau_b'], 3)}",
            )
            for r in rows
        ],
        columns=["label", "value", "note", "tip"],
    )
    return charts.bar_chart(frame, f"raters' mean Kendall tau-b against the {method} consensus")


# ------------------------------------------------------------------------------ the probe

PROBE_COMPARISON = "probe_model_comparison"


def probe_run_models(m: Marts) -> dict[str, str]:
    """Model of each probe run, from any published probe mart that has both columns.

    The run's model is recorded with the run (``stg_probe__runs``); which marts carry it
    into the serving file is the probe marts' business, so any ``probe_*`` mart with
    ``run_id`` and ``model`` will do.
    """
    models: dict[str, str] = {}
    for table in sorted(m.columns):
        if table.startswith("probe_") and m.has(table, "run_id", "model"):
            for r in m.rows(f"select distinct run_id, model from {SCHEMA}.{table}"):
                models.setdefault(str(r["run_id"]), str(r["model"]))
    return models


def _run_panel(model: str | None, run_id: str) -> str:
    # " · " is where charts.interval_chart breaks a panel's header onto two lines
    return f"{model or 'model not published'} · run {run_id}"


def fig_probe_delta(m: Marts) -> alt.TopLevelMixin:
    """Delta vs baseline per group, one panel per model and run, side by side; each panel
    is headed by its model and run."""
    t = "probe_paired_summary"
    need(m, t, "run_id", "group_name", "baseline_group", "mean_delta", "ci_low", "ci_high")
    rows = m.rows(
        f"select run_id, group_name, baseline_group, mean_delta, ci_low, ci_high "
        f"from {SCHEMA}.{t} order by run_id, group_name"
    )
    if not rows:
        raise NoData(
            f"no probe run exists yet (marts.{t} is empty): `make probe-install` (torch and "
            "transformers, seconds with uv), `concord probe demo` (about 10 s; a tiny random "
            "model: its numbers are noise) or `concord probe run --model PATH`, then "
            "`make build`"
        )
    models = probe_run_models(m)
    rows.sort(key=lambda r: (models.get(str(r["run_id"]), ""), r["run_id"], r["group_name"]))
    panels = [_run_panel(models.get(str(r["run_id"])), r["run_id"]) for r in rows]
    frame = _intervals(
        [(r["group_name"], r["mean_delta"], r["ci_low"], r["ci_high"]) for r in rows],
        panel=panels,
    )
    for tip in ("tip_estimate", "tip_interval"):
        frame[tip] = [f"{p} · {text}" for p, text in zip(panels, frame[tip], strict=True)]
    baselines = sorted({r["baseline_group"] for r in rows})
    return charts.interval_chart(
        frame,
        f"paired delta of the reliability index vs {' / '.join(baselines)}",
        ref=0.0,
        column="panel",
    )


def fig_probe_comparison(m: Marts) -> alt.TopLevelMixin:
    """Two models on the same messages: the mean per-message difference of their deltas
    vs baseline, per group, with its interval; one panel per pair of runs."""
    t = PROBE_COMPARISON
    columns = ("run_id_a", "model_a", "run_id_b", "model_b", "group_name")
    need(m, t, *columns, "mean_difference", "ci_low", "ci_high", "p_value")
    rows = _nonempty(
        m.rows(
            f"select {', '.join(columns)}, mean_difference, ci_low, ci_high, p_value "
            f"from {SCHEMA}.{t} order by model_a, run_id_a, model_b, run_id_b, group_name"
        ),
        f"{t} (it needs two probe runs over the same design)",
    )
    panels = [
        f"{r['model_a']} − {r['model_b']} · runs {r['run_id_a']} − {r['run_id_b']}" for r in rows
    ]
    frame = _intervals(
        [(r["group_name"], r["mean_difference"], r["ci_low"], r["ci_high"]) for r in rows],
        panel=panels,
    )
    frame["tip_estimate"] = [
        f"{p} · {text} (p = {fmt(r['p_value'], 3)})"
        for p, text, r in zip(panels, frame["tip_estimate"], rows, strict=True)
    ]
    frame["tip_interval"] = [
        f"{p} · {text}" for p, text in zip(panels, frame["tip_interval"], strict=True)
    ]
    return charts.interval_chart(
        frame,
        "difference of the paired deltas vs baseline (model a − model b)",
        ref=0.0,
        column="panel",
    )


# ------------------------------------------------------------------- the model scorecard

SCORECARD = "model_scorecard"
#: The scorecard's figures in percent, each with its interval: (label, estimate, interval
#: prefix); docs/scorecard.md says where each comes from
SCORECARD_FIGURES = (
    ("full agreement", "full_agreement_pct", "full_agreement"),
    ("mean pairwise agreement", "mean_pairwise_agreement_pct", "mean_pairwise_agreement"),
    ("accuracy (every language)", "accuracy_pct", "accuracy"),
    ("same option under another order", "order_effect_same_option_pct", "order_effect"),
)


def fig_scorecard(m: Marts) -> alt.TopLevelMixin:
    """Each model's headline figures under the baseline variant, one panel per figure, a
    row per model and task; a figure the model has no data for is left out of its panel."""
    t = SCORECARD
    columns = [c for _, estimate, interval in SCORECARD_FIGURES
               for c in (estimate, f"{interval}_ci_low", f"{interval}_ci_high")]  # fmt: skip
    need(m, t, "model", "model_revision", "task", *columns)
    rows = _nonempty(m.rows(f"select * from {SCHEMA}.{t} order by task, model"), t)
    tasks = {r["task"] for r in rows}
    drawn = []
    for title, estimate, interval in SCORECARD_FIGURES:
        for r in rows:
            low, high = r[f"{interval}_ci_low"], r[f"{interval}_ci_high"]
            if _finite(r[estimate]) and _finite(low) and _finite(high):
                label = model_label(r) if len(tasks) == 1 else f"{model_label(r)} · {r['task']}"
                drawn.append((title, label, r[estimate], low, high))
    if not drawn:
        raise NoData(f"marts.{t} has no figure with an interval yet")
    frame = _intervals([d[1:] for d in drawn], panel=[d[0] for d in drawn])
    frame["tip_estimate"] = [f"{r.panel} · {t}" for r, t in zip(frame.itertuples(),
                             frame["tip_estimate"], strict=True)]  # fmt: skip
    return charts.interval_chart(frame, "%", domain=(0.0, 100.0), column="panel")


# ------------------------------------------------------------- accuracy and calibration

ACCURACY = "mcq_accuracy"
CALIBRATION_BINS = "mcq_calibration_bins_v2"
SCORECARD_BY_VARIANT = "model_scorecard_by_variant"
#: the harness's two accuracies: the mart's columns of each, estimate then standard error
HARNESS_METRICS = (
    ("acc", "accuracy_pct", "accuracy_std_error"),
    ("acc_norm", "accuracy_norm_pct", "accuracy_norm_std_error"),
)
#: the normal quantile of a two-sided 95 % interval: every chart draws 95 %; ± 1 SE is shown
#: only in the harness's own table
Z_95 = NormalDist().inv_cdf(0.975)


def fig_accuracy(m: Marts) -> alt.TopLevelMixin:
    """acc and acc_norm per run and language, each with its 95 % normal interval, estimate
    ± z·SE with z the 0.975 normal quantile (the harness's standard error), clipped to
    [0, 100]; a panel per task; the runs without a gold are left out."""
    t = ACCURACY
    columns = [c for _, estimate, error in HARNESS_METRICS for c in (estimate, error)]
    need(m, t, *RUN_COLUMNS, "language", "n_items", *columns)
    rows = m.rows(
        f"select {', '.join(RUN_COLUMNS)}, language, n_items, {', '.join(columns)} "
        f"from {SCHEMA}.{t} where accuracy_pct is not null "
        "order by task, model, model_revision, variant, language"
    )
    if not rows:
        raise NoData(f"marts.{t} has no run with a gold yet (an lm-eval run, or a gold column)")
    drawn = []
    for r in rows:
        for metric, estimate, error in HARNESS_METRICS:
            if not _finite(r[estimate]):
                continue
            se = r[error] if _finite(r[error]) else 0.0
            half = Z_95 * se
            low, high = max(0.0, r[estimate] - half), min(100.0, r[estimate] + half)
            label = f"{run_label(r)} · {r['language']}"
            drawn.append((label, r[estimate], low, high, metric, r["task"], r["n_items"]))
    frame = _intervals(
        [d[:4] for d in drawn], series=[d[4] for d in drawn], panel=[d[5] for d in drawn]
    )
    frame["tip_estimate"] = [
        f"{d[5]} · {d[0]} · {d[4]}: {fmt(d[1], 2)} [{fmt(d[2], 2)}, {fmt(d[3], 2)}] "
        f"(95 %, n = {d[6]})"
        for d in drawn
    ]
    frame["tip_interval"] = frame["tip_estimate"]
    return charts.interval_chart(
        frame,
        "accuracy (%), 95 % interval",
        domain=(0.0, 100.0),
        color="series",
        color_order=[metric for metric, _, _ in HARNESS_METRICS],
        column="panel",
    )


def fig_reliability(m: Marts) -> alt.TopLevelMixin:
    """The reliability diagram of every run that scored its options against gold, pooled
    over its languages (each bin's counts summed), on the distribution of acc (the softmax
    of the summed log-likelihoods); a panel per task."""
    t = CALIBRATION_BINS
    need(m, t, *RUN_COLUMNS, "distribution", "calibration_bin", "bin_low", "bin_high",
         "n_items", "n_correct", "mean_confidence")  # fmt: skip
    rows = m.rows(
        f"select {', '.join(RUN_COLUMNS)}, calibration_bin, min(bin_low) as bin_low, "
        "min(bin_high) as bin_high, sum(n_items) as n_items, sum(n_correct) as n_correct, "
        "sum(mean_confidence * n_items) as confidence_sum "
        f"from {SCHEMA}.{t} where distribution = 'summed' "
        f"group by {', '.join(RUN_COLUMNS)}, calibration_bin "
        "order by task, model, model_revision, variant, calibration_bin"
    )
    if not rows:
        raise NoData(f"marts.{t} has no scored options with a gold yet (lm-eval sample logs)")
    frame = pd.DataFrame(
        {
            "series": [run_label(r) for r in rows],
            "panel": [r["task"] for r in rows],
            "x": [r["confidence_sum"] / r["n_items"] for r in rows],
            "y": [r["n_correct"] / r["n_items"] for r in rows],
            "n": [r["n_items"] for r in rows],
        }
    )
    frame["tip"] = [
        f"{r['task']} · {run_label(r)} · confidence [{fmt(r['bin_low'], 2)}, "
        f"{fmt(r['bin_high'], 2)}]: {r['n_items']} items, mean confidence "
        f"{fmt(x, 3)}, accuracy {fmt(y, 3)}"
        for r, x, y in zip(rows, frame["x"], frame["y"], strict=True)
    ]
    return charts.reliability_chart(frame, list(dict.fromkeys(frame["series"])))


def fig_accuracy_and_agreement(m: Marts) -> alt.TopLevelMixin:
    """Per run with a gold: its accuracy over every language (items as the unit of its
    interval) beside its full agreement across languages, each with its interval."""
    t = SCORECARD_BY_VARIANT
    figures = (("accuracy", "accuracy"), ("full agreement across languages", "full_agreement"))
    columns = [
        c for _, name in figures for c in (f"{name}_pct", f"{name}_ci_low", f"{name}_ci_high")
    ]
    need(m, t, *RUN_COLUMNS, *columns)
    rows = m.rows(
        f"select {', '.join(RUN_COLUMNS)}, {', '.join(columns)} from {SCHEMA}.{t} "
        "where accuracy_pct is not null order by task, model, model_revision, variant"
    )
    drawn = []
    for r in rows:
        for title, name in figures:
            low, high = r[f"{name}_ci_low"], r[f"{name}_ci_high"]
            if _finite(r[f"{name}_pct"]) and _finite(low) and _finite(high):
                drawn.append((f"{run_label(r)} · {r['task']}", r[f"{name}_pct"], low, high, title))
    if not drawn:
        raise NoData(f"marts.{t} has no run with a gold yet (an lm-eval run, or a gold column)")
    frame = _intervals([d[:4] for d in drawn], panel=[d[4] for d in drawn])
    return charts.interval_chart(frame, "%", domain=(0.0, 100.0), column="panel")


STUDIES: list[tuple[str, str, list[Figure]]] = [
    (
        "scorecard",
        "Model scorecard",
        [
            Figure(
                "model-scorecard",
                "Each model's headline figures",
                "Per model under the baseline variant: full and mean pairwise agreement across "
                "languages, accuracy against gold over every language (items as the unit of "
                "its interval) and the share of answers that point to the same option under "
                "another option order, in its language that moved most (docs/scorecard.md).",
                fig_scorecard,
            ),
        ],
    ),
    (
        "mcq",
        "Cross-lingual agreement",
        [
            Figure(
                "mcq-agreement",
                "Full agreement per model",
                "Share of complete items answered alike in every language of the task, per "
                "model and prompt variant, with its bootstrap percentile interval.",
                fig_agreement,
            ),
            Figure(
                "mcq-pairwise-agreement",
                "Mean pairwise agreement per model",
                "Mean over the pairs of languages of the share of items both answered alike, "
                "with its interval: comparable between tasks with 3 and 40 languages.",
                fig_pairwise_agreement,
            ),
            Figure(
                "mcq-languages-kappa",
                "Fleiss' kappa of the languages per model",
                "Chance-corrected agreement with the languages as raters of each item, with its "
                "bootstrap interval; 0 = chance.",
                fig_languages_kappa,
            ),
            Figure(
                "mcq-disagreement-types",
                "Disagreement types per model",
                "How each run's items split into the agreement types (docs/formulas.md) and "
                "incomplete, per task.",
                fig_disagreement_types,
            ),
            Figure(
                "mcq-domain-heatmap",
                "Disagreement by domain",
                "Items without full agreement per model and domain, per task and prompt "
                "variant; darker = more.",
                fig_domain_heatmap,
            ),
            Figure(
                "mcq-option-frequency",
                "Option and position shares per language",
                "How often each language chooses each option, pooled over the models of a task "
                "and variant: by the position it was shown at and by the option itself; red = "
                "more often than an even share.",
                fig_option_frequency,
            ),
            Figure(
                "mcq-choice-entropy",
                "Choice entropy",
                "Shannon entropy of each model's choices per language, per task and variant "
                "(hover a cell for its bootstrap interval); dark = concentrated on few options.",
                fig_choice_entropy,
            ),
            Figure(
                "mcq-language-pairs",
                "Language pairs",
                "Cohen's kappa of the answers of every pair of languages, per task and run "
                "(hover a cell for its interval, irrCAC's standard error); 0 = chance.",
                fig_language_pairs,
            ),
            Figure(
                "mcq-language-departures",
                "Languages departing from the majority",
                "Share of complete items on which each language gives another answer than the "
                "majority of languages, per task, variant and model (hover for its interval).",
                fig_language_departures,
            ),
            Figure(
                "mcq-order-effect",
                "Prompt variants against the baseline",
                "Per language, the share of items whose answer points to the same option under "
                "the variant as under the baseline variant (hover for its interval and the "
                "full agreement of both runs).",
                fig_order_effect,
            ),
        ],
    ),
    (
        "accuracy",
        "Accuracy and calibration",
        [
            Figure(
                "mcq-accuracy",
                "Accuracy per language and model",
                "acc (the option with the highest summed log-likelihood, or the letter given) "
                "and acc_norm (per character) against gold, per run and language, each "
                "with its 95 % interval (± 1.96 standard errors); a panel per task. The "
                "table below gives the figures ± one standard error, as "
                "lm-evaluation-harness prints them.",
                fig_accuracy,
            ),
            Figure(
                "mcq-reliability",
                "Reliability diagram",
                "Per run, the items of each confidence bin of the top option (pooled over "
                "the run's languages): their mean confidence against the share answered "
                "correctly, the point's area its number of items; on the dashed diagonal a "
                "model is calibrated (its expected calibration error, in the table, is the "
                "weighted mean distance). Hover a point for its bin and counts.",
                fig_reliability,
            ),
            Figure(
                "mcq-accuracy-agreement",
                "Accuracy beside cross-lingual agreement",
                "Per run with a gold: its accuracy over every language (items as the unit of "
                "its interval) beside its full agreement across languages, each with its "
                "interval: a model can be right in one language and answer otherwise in "
                "another.",
                fig_accuracy_and_agreement,
            ),
        ],
    ),
    (
        "rater",
        "Rater disagreement",
        [
            Figure(
                "rater-reference-measures",
                "Measures of the reference examples",
                "Each per-item measure on the reference rating patterns (item id = the six "
                "ratings).",
                fig_reference_measures,
            ),
            Figure(
                "rater-kappa",
                "Fleiss' kappa per dataset",
                "Chance-corrected agreement per dataset with its bootstrap interval; 0 = chance.",
                fig_kappa,
            ),
            Figure(
                "rater-coefficients",
                "Agreement coefficients per dataset",
                "Every agreement coefficient of each dataset side by side (weighted variants "
                "named with their weights), with its interval; 0 = chance for the "
                "chance-corrected ones.",
                fig_rater_coefficients,
            ),
        ],
    ),
    (
        "ranking",
        "Ordered-task rankings",
        [
            Figure(
                "ranking-kendall-matrix",
                "Raters × raters Kendall matrix",
                "Mean Kendall tau-b between every pair of raters' rankings, over scenarios.",
                fig_kendall_matrix,
            ),
            Figure(
                "ranking-controversy",
                "Most controversial scenarios",
                "The ten scenarios whose raters agree least with the consensus ranking "
                "(W = Kendall's coefficient of concordance).",
                fig_controversy,
            ),
        ],
    ),
    (
        "probe",
        "Name-swap reliability probe",
        [
            Figure(
                "probe-delta",
                "Delta vs baseline per group",
                "Mean paired difference of the reliable-minus-unreliable index from the "
                "baseline group, with its interval; one panel per model and run, side by side.",
                fig_probe_delta,
            ),
            Figure(
                "probe-model-comparison",
                "Models compared on the same messages",
                "Mean per-message difference between two models' deltas vs baseline, per "
                "group, with its bootstrap interval; 0 = the models agree.",
                fig_probe_comparison,
            ),
        ],
    ),
]
