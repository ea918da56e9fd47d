"""The visual report: a self-contained static page drawn from the published serving file.

One section per study, each figure an inline SVG drawn here (no plotting library, no CDN,
no external URL: the page opens offline) inside ``<figure data-figure=KEY>`` with a one-line
caption. A study whose marts are absent or empty gets a clear "no data yet" note in place
of each figure, so the page always renders. A last section lists every published mart.

    python -m concord_io.report --serving warehouse/serving/concord.duckdb --out warehouse/report
"""

from __future__ import annotations

import argparse
import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from concord_io.connect import connect_serving
from concord_io.publish import SCHEMA

WIDTH = 760
LABEL_W = 220
FONT = 12
PALETTE = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#9d755d")


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
        cursor = self.con.execute(sql, params or [])
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


class NoData(Exception):
    """A figure has nothing to draw; the message says why (shown on the page)."""


def _need(marts: Marts, table: str, *columns: str) -> None:
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


# ---------------------------------------------------------------------------- SVG drawing


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _fmt(value: float, digits: int = 1) -> str:
    return "–" if not _finite(value) else f"{value:.{digits}f}"


def _svg(height: float, body: list[str], label: str) -> str:
    return (
        f'<svg viewBox="0 0 {WIDTH} {height:.0f}" width="{WIDTH}" height="{height:.0f}" '
        f'role="img" aria-label="{_e(label)}" font-size="{FONT}">' + "".join(body) + "</svg>"
    )


def _text(x, y, text, anchor="start", extra="", limit=29) -> str:
    """A text element; text longer than ``limit`` is shortened, in full on hover."""
    text = str(text)
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    hover = f"<title>{_e(text)}</title>" if shown != text else ""
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" {extra}>{hover}{_e(shown)}</text>'


def _scale(lo: float, hi: float, x0: float, x1: float) -> Callable[[float], float]:
    span = (hi - lo) or 1.0
    return lambda v: x0 + (v - lo) / span * (x1 - x0)


def _nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    span = hi - lo or 1.0
    step = 10 ** math.floor(math.log10(span / n))
    for m in (1, 2, 2.5, 5, 10):
        if span / (step * m) <= n:
            step *= m
            break
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def _axis(lo, hi, x, y_top, y_bottom, label) -> list[str]:
    out = []
    for tick in _nice_ticks(lo, hi):
        px = x(tick)
        out.append(f'<line x1="{px:.1f}" x2="{px:.1f}" y1="{y_top}" y2="{y_bottom}" class="grid"/>')
        out.append(_text(px, y_bottom + 14, f"{tick:g}", "middle", 'class="tick"'))
    out.append(
        _text((x(lo) + x(hi)) / 2, y_bottom + 30, label, "middle", 'class="axis"', limit=120)
    )
    return out


def _legend(names: Sequence[str], y: float, colors: Sequence[str] = PALETTE) -> list[str]:
    out, x = [], 10
    for i, name in enumerate(names):
        out.append(
            f'<rect x="{x}" y="{y - 9}" width="10" height="10" fill="{colors[i % len(colors)]}"/>'
        )
        out.append(_text(x + 14, y, name))
        x += 24 + 7 * len(name)
    return out


def interval_chart(rows, x_label, lo=None, hi=None, ref=None) -> str:
    """One row per (label, estimate, low, high): a dot and its interval."""
    values = [v for r in rows for v in r[1:] if _finite(v)]
    lo = min(values + ([ref] if ref is not None else [])) if lo is None else lo
    hi = max(values + ([ref] if ref is not None else [])) if hi is None else hi
    pad = (hi - lo) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad
    row_h, top = 22, 10
    bottom = top + row_h * len(rows)
    x = _scale(lo, hi, LABEL_W, WIDTH - 30)
    body = _axis(lo, hi, x, top, bottom, x_label)
    if ref is not None:
        body.append(
            f'<line x1="{x(ref):.1f}" x2="{x(ref):.1f}" y1="{top}" y2="{bottom}" class="ref"/>'
        )
    for i, (label, est, low, high) in enumerate(rows):
        cy = top + row_h * i + row_h / 2
        body.append(_text(LABEL_W - 8, cy + 4, label, "end"))
        if _finite(low) and _finite(high):
            body.append(
                f'<line x1="{x(low):.1f}" x2="{x(high):.1f}" y1="{cy}" y2="{cy}" '
                f'class="mark whisker"><title>{_e(label)}: [{_fmt(low, 3)}, '
                f"{_fmt(high, 3)}]</title></line>"
            )
        if _finite(est):
            body.append(
                f'<circle cx="{x(est):.1f}" cy="{cy}" r="4.5" class="mark dot">'
                f"<title>{_e(label)}: {_fmt(est, 3)}</title></circle>"
            )
    return _svg(bottom + 40, body, x_label)


def stacked_bars(labels, series, matrix, x_label) -> str:
    """One horizontal bar per label, split into ``series`` (values are shares summing to 100)."""
    row_h, top = 22, 26
    bottom = top + row_h * len(labels)
    x = _scale(0, 100, LABEL_W, WIDTH - 30)
    body = _legend(series, 14) + _axis(0, 100, x, top, bottom, x_label)
    for i, (label, values) in enumerate(zip(labels, matrix, strict=True)):
        y = top + row_h * i + 3
        body.append(_text(LABEL_W - 8, y + 13, label, "end"))
        start = 0.0
        for j, value in enumerate(values):
            if not _finite(value) or value <= 0:
                continue
            body.append(
                f'<rect x="{x(start):.1f}" y="{y}" width="{x(start + value) - x(start):.1f}" '
                f'height="{row_h - 6}" fill="{PALETTE[j % len(PALETTE)]}" class="mark">'
                f"<title>{_e(label)} · {_e(series[j])}: {_fmt(value)} %</title></rect>"
            )
            start += value
    return _svg(bottom + 40, body, x_label)


def _mix(c0, c1, t):
    t = min(max(t, 0.0), 1.0)
    return "#" + "".join(f"{round(a + (b - a) * t):02x}" for a, b in zip(c0, c1, strict=True))


def _color(value, lo, hi, diverging):
    if not _finite(value):
        return "#eeeeee"
    white, red, blue = (255, 255, 255), (178, 24, 43), (33, 102, 172)
    if diverging:
        mid = (lo + hi) / 2
        if value >= mid:
            return _mix(white, blue, (value - mid) / ((hi - mid) or 1))
        return _mix(white, red, (mid - value) / ((mid - lo) or 1))
    return _mix(white, red, (value - lo) / ((hi - lo) or 1))


def heatmap(row_labels, col_labels, cells, lo, hi, label, diverging=False) -> str:
    """``cells[(row, col)] = (value, text)``; colour by value, ``text`` written in the cell."""
    longest = min(24, max((len(str(c)) for c in col_labels), default=1))
    top = 16 + 4.6 * longest
    # rotated column labels run up and to the right: leave them room on the right
    cell_w = min(60.0, (WIDTH - LABEL_W - 5.2 * longest) / max(len(col_labels), 1))
    cell_h = 22
    body = []
    for j, col in enumerate(col_labels):
        cx = LABEL_W + cell_w * j + cell_w / 2
        body.append(
            _text(
                cx,
                top - 6,
                col,
                "start",
                f'transform="rotate(-40 {cx:.1f} {top - 6:.1f})"',
                limit=24,
            )
        )
    for i, row in enumerate(row_labels):
        y = top + cell_h * i
        body.append(_text(LABEL_W - 8, y + 15, row, "end"))
        for j, col in enumerate(col_labels):
            value, text = cells.get((row, col), (None, ""))
            fill = _color(value, lo, hi, diverging)
            x = LABEL_W + cell_w * j
            cls = "mark cell" if _finite(value) else "cell empty"
            body.append(
                f'<rect x="{x:.1f}" y="{y}" width="{cell_w - 1:.1f}" height="{cell_h - 1}" '
                f'fill="{fill}" class="{cls}"><title>{_e(row)} × {_e(col)}: '
                f"{_e(text)}</title></rect>"
            )
            if text:
                dark = _finite(value) and abs(
                    (value - (lo + hi) / 2 if diverging else value - lo) / ((hi - lo) or 1)
                ) > (0.35 if diverging else 0.6)
                body.append(
                    _text(
                        x + cell_w / 2,
                        y + 15,
                        text,
                        "middle",
                        f'class="cell-text{" light" if dark else ""}"',
                    )
                )
    bottom = top + cell_h * len(row_labels)
    body.append(_text(LABEL_W, bottom + 18, label, "start", 'class="axis"', limit=120))
    return _svg(bottom + 28, body, label)


def grouped_bars(groups, series, values, y_label) -> str:
    """Vertical bars: ``values[group][series]``; one cluster per group."""
    top, plot_h = 28, 220
    hi = max([v for g in values for v in g if _finite(v)] + [1.0]) * 1.1
    y = _scale(0, hi, top + plot_h, top)
    group_w = (WIDTH - LABEL_W - 20) / max(len(groups), 1)
    bar_w = group_w * 0.8 / max(len(series), 1)
    body = _legend(series, 14)
    for tick in _nice_ticks(0, hi):
        body.append(
            f'<line x1="{LABEL_W}" x2="{WIDTH - 20}" y1="{y(tick):.1f}" '
            f'y2="{y(tick):.1f}" class="grid"/>'
        )
        body.append(_text(LABEL_W - 6, y(tick) + 4, f"{tick:g}", "end", 'class="tick"'))
    body.append(
        _text(
            LABEL_W - 40,
            top + plot_h / 2,
            y_label,
            "middle",
            f'class="axis" transform="rotate(-90 {LABEL_W - 40} {top + plot_h / 2})"',
        )
    )
    for g, group in enumerate(groups):
        gx = LABEL_W + group_w * g + group_w * 0.1
        for s, value in enumerate(values[g]):
            if not _finite(value):
                continue
            body.append(
                f'<rect x="{gx + bar_w * s:.1f}" y="{y(value):.1f}" width="{bar_w - 2:.1f}" '
                f'height="{y(0) - y(value):.1f}" fill="{PALETTE[s % len(PALETTE)]}" '
                f'class="mark"><title>{_e(group)} · {_e(series[s])}: {_fmt(value)}</title></rect>'
            )
        body.append(_text(LABEL_W + group_w * (g + 0.5), top + plot_h + 16, group, "middle"))
    return _svg(top + plot_h + 30, body, y_label)


def dumbbell(rows, names, x_label) -> str:
    """One row per (label, a, b): two dots joined, ``a`` in the first colour."""
    values = [v for r in rows for v in r[1:] if _finite(v)]
    lo, hi = min(values + [0.0]), max(values + [100.0])
    row_h, top = 22, 26
    bottom = top + row_h * len(rows)
    x = _scale(lo, hi, LABEL_W, WIDTH - 30)
    body = _legend(names, 14) + _axis(lo, hi, x, top, bottom, x_label)
    for i, (label, a, b) in enumerate(rows):
        cy = top + row_h * i + row_h / 2
        body.append(_text(LABEL_W - 8, cy + 4, label, "end"))
        if _finite(a) and _finite(b):
            body.append(f'<line x1="{x(a):.1f}" x2="{x(b):.1f}" y1="{cy}" y2="{cy}" class="link"/>')
        for k, value in enumerate((a, b)):
            if _finite(value):
                body.append(
                    f'<circle cx="{x(value):.1f}" cy="{cy}" r="5" fill="{PALETTE[k]}" '
                    f'class="mark"><title>{_e(label)} · {_e(names[k])}: {_fmt(value)}</title>'
                    "</circle>"
                )
    return _svg(bottom + 40, body, x_label)


def bar_chart(rows, x_label) -> str:
    """Horizontal bars from 0 (or the smallest negative value): one per (label, value, note)."""
    values = [r[1] for r in rows if _finite(r[1])]
    lo, hi = min(values + [0.0]), max(values + [0.0])
    if hi == lo:
        hi = lo + 1
    row_h, top = 22, 10
    bottom = top + row_h * len(rows)
    x = _scale(lo, hi, LABEL_W, WIDTH - 120)
    body = _axis(lo, hi, x, top, bottom, x_label)
    for i, (label, value, note) in enumerate(rows):
        y = top + row_h * i + 3
        body.append(_text(LABEL_W - 8, y + 13, label, "end"))
        if _finite(value):
            x0, x1 = sorted((x(0), x(value)))
            body.append(
                f'<rect x="{x0:.1f}" y="{y}" width="{max(x1 - x0, 1.5):.1f}" '
                f'height="{row_h - 6}" fill="{PALETTE[0]}" class="mark">'
                f"<title>{_e(label)}: {_fmt(value, 3)}</title></rect>"
            )
        body.append(_text(WIDTH - 112, y + 13, note, "start", 'class="tick"'))
    return _svg(bottom + 40, body, x_label)


# ------------------------------------------------------------------------------- figures


@dataclass
class Figure:
    key: str
    title: str
    caption: str
    draw: Callable[[Marts], str]


def _runs_label(model, run) -> str:
    return model if run == "base" else f"{model} ({run})"


def fig_agreement(m: Marts) -> str:
    t = "mcq_agreement_summary"
    _need(m, t, "model", "run", "agreement_pct", "agreement_ci_low", "agreement_ci_high")
    rows = _nonempty(
        m.rows(
            "select model, run, agreement_pct, agreement_ci_low, agreement_ci_high "
            f"from {SCHEMA}.{t} order by run, agreement_pct desc, model"
        ),
        t,
    )
    data = [
        (
            _runs_label(r["model"], r["run"]),
            r["agreement_pct"],
            r["agreement_ci_low"],
            r["agreement_ci_high"],
        )
        for r in rows
    ]
    return interval_chart(data, "full agreement across languages (%)", 0, 100)


MCQ_TYPES = ("all_same", "fa_diverged", "it_diverged", "en_diverged", "all_different", "incomplete")


def fig_disagreement_types(m: Marts) -> str:
    t = "mcq_agreement_summary"
    _need(m, t, "model", "run", "n_items", "agreement_pct", *(f"n_{k}" for k in MCQ_TYPES))
    rows = _nonempty(m.rows(f"select * from {SCHEMA}.{t} order by run, agreement_pct desc"), t)
    labels = [_runs_label(r["model"], r["run"]) for r in rows]
    matrix = [
        [100 * r[f"n_{k}"] / r["n_items"] if r["n_items"] else None for k in MCQ_TYPES]
        for r in rows
    ]
    return stacked_bars(labels, MCQ_TYPES, matrix, "share of items (%)")


def fig_domain_heatmap(m: Marts) -> str:
    t = "mcq_domain_disagreement"
    _need(m, t, "model", "run", "domain", "n_items", "n_disagree")
    rows = _nonempty(
        m.rows(
            f"select model, domain, n_items, n_disagree from {SCHEMA}.{t} where run = 'base' "
            "order by model, domain"
        ),
        t,
    )
    models = sorted({r["model"] for r in rows})
    domains = sorted({r["domain"] for r in rows})
    cells = {
        (r["model"], r["domain"]): (
            100 * r["n_disagree"] / r["n_items"] if r["n_items"] else None,
            f"{r['n_disagree']}/{r['n_items']}",
        )
        for r in rows
    }
    return heatmap(
        models, domains, cells, 0, 100, "items without full agreement / items, base run (colour: %)"
    )


def fig_option_frequency(m: Marts) -> str:
    t = "mcq_option_frequency"
    _need(m, t, "run", "language", "option", "n", "n_valid")
    rows = _nonempty(
        m.rows(
            f"select language, option, 100.0 * sum(n) / nullif(sum(n_valid), 0) as pct "
            f"from {SCHEMA}.{t} where run = 'base' group by language, option"
        ),
        t,
    )
    languages = sorted(
        {r["language"] for r in rows},
        key=lambda x: ("en", "it", "fa").index(x) if x in ("en", "it", "fa") else 9,
    )
    options = sorted({r["option"] for r in rows})
    pct = {(r["language"], r["option"]): r["pct"] for r in rows}
    values = [[pct.get((lang, o)) for o in options] for lang in languages]
    return grouped_bars([lang.upper() for lang in languages], options, values, "% of valid answers")


def fig_choice_entropy(m: Marts) -> str:
    t = "mcq_choice_entropy"
    _need(m, t, "model", "run", "language", "entropy_bits", "ci_low", "ci_high")
    rows = _nonempty(
        m.rows(
            f"select model, language, entropy_bits, ci_low, ci_high from {SCHEMA}.{t} "
            "where run = 'base' order by model, language"
        ),
        t,
    )
    data = [
        (f"{r['model']} · {r['language'].upper()}", r["entropy_bits"], r["ci_low"], r["ci_high"])
        for r in rows
    ]
    return interval_chart(data, "choice entropy (bits; 2 = uniform over 4 options)", 0, 2)


def fig_order_effect(m: Marts) -> str:
    t = "mcq_order_effect"
    _need(m, t, "model", "agreement_pct_base", "agreement_pct_shuffled")
    rows = _nonempty(
        m.rows(
            f"select model, agreement_pct_base, agreement_pct_shuffled from {SCHEMA}.{t} "
            "order by model"
        ),
        t,
    )
    data = [(r["model"], r["agreement_pct_base"], r["agreement_pct_shuffled"]) for r in rows]
    return dumbbell(data, ("base order", "shuffled order"), "full agreement (%)")


REFERENCE_MEASURES = (
    "dispersion_index",
    "fleiss_pi",
    "group_disagreement",
    "simpson_index",
    "gini_simpson",
    "entropy_norm_k",
)


def fig_reference_measures(m: Marts) -> str:
    t = "rater_item_disagreement"
    _need(m, t, "dataset", "item_id", *REFERENCE_MEASURES)
    rows = _nonempty(
        m.rows(f"select * from {SCHEMA}.{t} where dataset = 'reference_examples' order by item_id"),
        f"{t} (dataset reference_examples)",
    )
    items = [str(r["item_id"]) for r in rows]
    cells = {
        (str(r["item_id"]), k): (r[k], _fmt(r[k], 2)) for r in rows for k in REFERENCE_MEASURES
    }
    return heatmap(
        items,
        REFERENCE_MEASURES,
        cells,
        0,
        1,
        "each measure on its 0–1 scale: Fleiss' Pi 1 = all raters agree; the others 0 = all agree",
    )


def fig_kappa(m: Marts) -> str:
    t = "rater_agreement_summary"
    _need(m, t, "dataset", "fleiss_kappa", "fleiss_kappa_ci_low", "fleiss_kappa_ci_high")
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
    return interval_chart(data, "Fleiss' kappa", ref=0.0)


def fig_kendall_matrix(m: Marts) -> str:
    t = "ranking_pair_kendall"
    _need(m, t, "rater_id", "other_rater_id", "mean_tau_b")
    rows = _nonempty(m.rows(f"select rater_id, other_rater_id, mean_tau_b from {SCHEMA}.{t}"), t)
    raters = sorted({r["rater_id"] for r in rows} | {r["other_rater_id"] for r in rows})
    cells = {}
    for r in rows:
        cell = (r["mean_tau_b"], _fmt(r["mean_tau_b"], 2))
        cells[(r["rater_id"], r["other_rater_id"])] = cell  # the mart has every ordered pair
    return heatmap(
        raters,
        raters,
        cells,
        -1,
        1,
        "mean Kendall tau-b over scenarios (blue = agree, red = reversed)",
        diverging=True,
    )


# the best-defined consensus first (the reference notes say the position-wise mode is not)
CONSENSUS_PREFERENCE = ("kemeny", "borda")


def fig_controversy(m: Marts) -> str:
    t = "ranking_scenario_controversy"
    _need(m, t, "scenario_id", "method", "mean_tau_b", "kendall_w", "controversy_rank")
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
    data = [(r["scenario_id"], r["mean_tau_b"], f"W = {_fmt(r['kendall_w'], 2)}") for r in rows]
    return bar_chart(data, f"raters' mean Kendall tau-b against the {method} consensus")


def fig_probe_delta(m: Marts) -> str:
    t = "probe_paired_summary"
    _need(m, t, "run_id", "group_name", "baseline_group", "mean_delta", "ci_low", "ci_high")
    rows = m.rows(
        f"select run_id, group_name, baseline_group, mean_delta, ci_low, ci_high "
        f"from {SCHEMA}.{t} order by run_id, group_name"
    )
    if not rows:
        raise NoData(
            "no probe run exists yet (marts.probe_paired_summary is empty): run the "
            "probe job, then `make build`"
        )
    runs = {r["run_id"] for r in rows}
    data = [
        (
            r["group_name"] if len(runs) == 1 else f"{r['group_name']} ({r['run_id']})",
            r["mean_delta"],
            r["ci_low"],
            r["ci_high"],
        )
        for r in rows
    ]
    baseline = rows[0]["baseline_group"]
    return interval_chart(data, f"paired delta of the reliability index vs {baseline}", ref=0.0)


STUDIES: list[tuple[str, str, list[Figure]]] = [
    (
        "mcq",
        "Cross-lingual agreement (EN / IT / FA)",
        [
            Figure(
                "mcq-agreement",
                "Agreement per model",
                "Share of items answered identically in English, Italian and Persian, with its "
                "bootstrap percentile interval.",
                fig_agreement,
            ),
            Figure(
                "mcq-disagreement-types",
                "Disagreement types per model",
                "How each model's items split into the five agreement types (and incomplete).",
                fig_disagreement_types,
            ),
            Figure(
                "mcq-domain-heatmap",
                "Disagreement by domain",
                "Items without full agreement per model and domain (base run); darker = more.",
                fig_domain_heatmap,
            ),
            Figure(
                "mcq-option-frequency",
                "Option frequency per language",
                "How often each presented letter is chosen per language, pooled over models "
                "(base run).",
                fig_option_frequency,
            ),
            Figure(
                "mcq-choice-entropy",
                "Choice entropy",
                "Shannon entropy of each model's choices per language, with its bootstrap "
                "interval; 2 bits = uniform.",
                fig_choice_entropy,
            ),
            Figure(
                "mcq-order-effect",
                "Base vs shuffled option order",
                "Full agreement with the original option order and with the order reversed.",
                fig_order_effect,
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
                "baseline group, with its interval.",
                fig_probe_delta,
            ),
        ],
    ),
]


# --------------------------------------------------------------------------------- page

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:840px;
padding:1rem 1.5rem;color:#222;line-height:1.4}
h1{margin-bottom:.2rem}h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2.2rem}
.meta{color:#666;font-size:.9rem}figure{margin:1.2rem 0 1.8rem}figure h3{margin:.2rem 0 .4rem}
figcaption{color:#444;font-size:.92rem;margin-top:.3rem}svg{max-width:100%;height:auto}
svg text{fill:#333}.tick{fill:#777;font-size:10px}.axis{fill:#555;font-size:11px}
.grid{stroke:#e6e6e6}.ref{stroke:#999;stroke-dasharray:4 3}.whisker{stroke:#4c78a8;
stroke-width:2.5}.dot{fill:#1f3b63}.link{stroke:#bbb;stroke-width:2}.cell-text{font-size:10px;
pointer-events:none}.cell-text.light{fill:#fff}.no-data{background:#fff8e1;border:1px solid
#f0d98c;padding:.7rem 1rem;border-radius:4px}table{border-collapse:collapse;font-size:.88rem}
td,th{border-bottom:1px solid #eee;padding:.25rem .5rem;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
"""

# Measures what Chromium actually drew, so a headless browser check can read it off the page.
CHECK_SCRIPT = """
document.querySelectorAll('figure[data-figure]').forEach(function(f){
  var s=f.querySelector('svg'),n=0;
  if(s){f.querySelectorAll('.mark').forEach(function(e){var b=e.getBBox();
    if(b.width>0||b.height>0){n++;}});
    var r=s.getBoundingClientRect();f.dataset.renderedSize=Math.round(r.width)+'x'+
    Math.round(r.height);}
  f.dataset.visibleMarks=n;});
document.body.dataset.checked='1';
"""


def render_figure(fig: Figure, marts: Marts) -> str:
    try:
        svg = fig.draw(marts)
        state = "ok"
        marks = svg.count('class="mark')
        body = svg
    except NoData as why:
        state, marks = "empty", 0
        body = f'<p class="no-data">No data yet: {_e(why)}.</p>'
    return (
        f'<figure id="fig-{fig.key}" data-figure="{fig.key}" data-state="{state}" '
        f'data-marks="{marks}"><h3>{_e(fig.title)}</h3>{body}'
        f"<figcaption>{_e(fig.caption)}</figcaption></figure>"
    )


def _marts_table(marts: Marts) -> str:
    rows = marts.rows(
        "select table_name, comment from duckdb_tables() where schema_name = ? order by table_name",
        [SCHEMA],
    )
    out = ["<table><tr><th>mart</th><th>rows</th><th>what one row is</th></tr>"]
    for r in rows:
        (n,) = marts.con.execute(f'select count(*) from {SCHEMA}."{r["table_name"]}"').fetchone()
        first = (r["comment"] or "").split(". ")[0].strip()
        if len(first) > 180:
            first = first[:179].rsplit(" ", 1)[0] + " …"
        out.append(
            f'<tr><td><code>{_e(r["table_name"])}</code></td><td class="n">{n}</td>'
            f"<td>{_e(first)}</td></tr>"
        )
    out.append("</table>")
    return "".join(out)


def render_page(marts: Marts, publication: dict | None, docs_link: bool) -> str:
    meta = ""
    if publication:
        meta = (
            f'<p class="meta">Serving version {_e(publication.get("version", "?"))}; '
            f"marts built {_e(publication.get('built_at', '?'))}, published "
            f"{_e(publication.get('published_at', '?'))}.</p>"
        )
    parts = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        f"<title>Concord report</title><style>{CSS}</style></head><body>",
        "<h1>Concord report</h1>",
        meta,
        "<p>How consistently language models answer: across languages, raters, orderings "
        "and name swaps. Every picture is drawn from the published serving file; hover a "
        "mark for its value.</p>",
    ]
    for key, title, figures in STUDIES:
        parts.append(f'<section id="study-{key}" data-study="{key}"><h2>{_e(title)}</h2>')
        parts.extend(render_figure(f, marts) for f in figures)
        parts.append("</section>")
    parts.append('<section id="marts"><h2>Published marts</h2>')
    parts.append(_marts_table(marts))
    if docs_link:
        parts.append(
            '<p>Column-level documentation and lineage: <a href="docs/index.html">dbt docs</a>.</p>'
        )
    parts.append(
        '</section><p class="meta">The cross-lingual scenarios are from Saba Ghanbari '
        "Haez's repository Saba-Gh-H/cross-lingual-bias-detection (Ghanbari Haez, Magnolini, "
        "Consolandi, Dragoni); the shipped answer files are reconstructed from the study's "
        "published aggregates and are not findings about the models.</p>"
    )
    parts.append(f"<script>{CHECK_SCRIPT}</script></body></html>")
    return "\n".join(parts)


def build_report(serving: str | Path, out_dir: str | Path) -> Path:
    """Write ``out_dir/index.html`` from the serving file; returns its path."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    con = connect_serving(serving)
    try:
        marts = Marts(con)
        publication = None
        has_meta = con.execute(
            "select count(*) from duckdb_tables() where schema_name = 'meta' "
            "and table_name = 'publication'"
        ).fetchone()[0]
        if has_meta:
            rows = marts.rows("select * from meta.publication")
            publication = rows[0] if rows else None
        page = render_page(marts, publication, (out_dir / "docs" / "index.html").is_file())
    finally:
        con.close()
    target = out_dir / "index.html"
    temp = out_dir / ".index.html.tmp"
    temp.write_text(page, encoding="utf-8")
    temp.replace(target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serving", required=True, help="the serving file (or its symlink)")
    parser.add_argument("--out", required=True, help="folder for index.html")
    args = parser.parse_args(argv)
    path = build_report(args.serving, args.out)
    print(f"report: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
