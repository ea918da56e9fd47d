"""The report's figures: one function per figure, from the published marts to a chart.

Each function reads the marts it needs from the serving file (checking every column it
queries first) and returns an Altair chart (``concord_io.report.charts``); a figure with
nothing to draw raises :class:`NoData`, whose message the page shows in its place.
:data:`STUDIES` lists the figures of each study, in page order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

import altair as alt
import duckdb
import pandas as pd

from concord_io.publish import SCHEMA
from concord_io.report import charts

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


def _runs_label(model, run) -> str:
    return model if run == "base" else f"{model} ({run})"


def fig_agreement(m: Marts) -> alt.TopLevelMixin:
    t = "mcq_agreement_summary"
    need(m, t, "model", "run", "agreement_pct", "agreement_ci_low", "agreement_ci_high")
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
    return charts.interval_chart(
        _intervals(data), "full agreement across languages (%)", domain=(0, 100)
    )


MCQ_TYPES = ("all_same", "fa_diverged", "it_diverged", "en_diverged", "all_different", "incomplete")


def fig_disagreement_types(m: Marts) -> alt.TopLevelMixin:
    t = "mcq_agreement_summary"
    need(m, t, "model", "run", "n_items", "agreement_pct", *(f"n_{k}" for k in MCQ_TYPES))
    rows = _nonempty(m.rows(f"select * from {SCHEMA}.{t} order by run, agreement_pct desc"), t)
    data = []
    for r in rows:
        label = _runs_label(r["model"], r["run"])
        for kind in MCQ_TYPES:
            share = 100 * r[f"n_{kind}"] / r["n_items"] if r["n_items"] else None
            data.append((label, kind, share, f"{label} · {kind}: {fmt(share)} %"))
    frame = pd.DataFrame(data, columns=["label", "series", "value", "tip"])
    return charts.stacked_bars(frame, list(MCQ_TYPES), "share of items (%)")


def fig_domain_heatmap(m: Marts) -> alt.TopLevelMixin:
    t = "mcq_domain_disagreement"
    need(m, t, "model", "run", "domain", "n_items", "n_disagree")
    rows = _nonempty(
        m.rows(
            f"select model, domain, n_items, n_disagree from {SCHEMA}.{t} where run = 'base' "
            "order by model, domain"
        ),
        t,
    )
    data = []
    for r in rows:
        share = 100 * r["n_disagree"] / r["n_items"] if r["n_items"] else None
        text = f"{r['n_disagree']}/{r['n_items']}"
        data.append((r["model"], r["domain"], share, text, f"{r['model']} × {r['domain']}: {text}"))
    frame = pd.DataFrame(data, columns=["row", "column", "value", "text", "tip"])
    return charts.heatmap(
        frame,
        sorted(frame["row"].unique()),
        sorted(frame["column"].unique()),
        (0, 100),
        "items without full agreement / items, base run (colour: %)",
    )


def language_order(m: Marts) -> list[str]:
    """The study's languages in the order of the dbt var ``mcq_languages``, read off the
    published columns ``entropy_<language>_bits`` of ``mcq_agreement_summary`` (generated
    in that order), so that the list stays declared once."""
    columns = m.rows(
        "select column_name from duckdb_columns() where schema_name = ? "
        "and table_name = 'mcq_agreement_summary' order by column_index",
        [SCHEMA],
    )
    found = (re.fullmatch(r"entropy_(\w+)_bits", c["column_name"]) for c in columns)
    return [match.group(1) for match in found if match]


def _by_language(order: list[str]) -> Callable[[str], tuple[int, str]]:
    """Sort key: languages in ``order`` first, in that order, then any other by name."""
    return lambda language: (
        order.index(language.lower()) if language.lower() in order else len(order),
        language,
    )


def fig_option_frequency(m: Marts) -> alt.TopLevelMixin:
    t = "mcq_option_frequency"
    need(m, t, "run", "language", "option", "n", "n_valid")
    rows = _nonempty(
        m.rows(
            f"select language, option, 100.0 * sum(n) / nullif(sum(n_valid), 0) as pct "
            f"from {SCHEMA}.{t} where run = 'base' group by language, option"
        ),
        t,
    )
    languages = sorted({r["language"].upper() for r in rows}, key=_by_language(language_order(m)))
    frame = pd.DataFrame(
        [
            (
                r["language"].upper(),
                r["option"],
                r["pct"],
                f"{r['language'].upper()} · {r['option']}: {fmt(r['pct'])}",
            )
            for r in rows
        ],
        columns=["group", "series", "value", "tip"],
    )
    options = sorted(frame["series"].unique())
    return charts.grouped_bars(frame, languages, options, "% of valid answers")


def fig_choice_entropy(m: Marts) -> alt.TopLevelMixin:
    t = "mcq_choice_entropy"
    need(m, t, "model", "run", "language", "entropy_bits", "ci_low", "ci_high")
    rows = _nonempty(
        m.rows(
            f"select model, language, entropy_bits, ci_low, ci_high from {SCHEMA}.{t} "
            "where run = 'base' order by model, language"
        ),
        t,
    )
    rank = _by_language(language_order(m))
    rows.sort(key=lambda r: (r["model"], rank(r["language"])))
    data = [
        (f"{r['model']} · {r['language'].upper()}", r["entropy_bits"], r["ci_low"], r["ci_high"])
        for r in rows
    ]
    return charts.interval_chart(
        _intervals(data),
        "choice entropy (bits; 2 = uniform over 4 options)",
        domain=(0, 2),
    )


def fig_order_effect(m: Marts) -> alt.TopLevelMixin:
    """Full agreement of each model under the base and the shuffled option order, each with
    its bootstrap interval, side by side within the model's row: equal values stay two
    visible marks, and the intervals say whether a difference is more than noise."""
    t, summary = "mcq_order_effect", "mcq_agreement_summary"
    need(m, t, "model", "agreement_pct_base", "agreement_pct_shuffled")
    need(m, summary, "model", "run", "agreement_pct", "agreement_ci_low", "agreement_ci_high")
    rows = _nonempty(
        m.rows(
            "select s.model, s.run, s.agreement_pct, s.agreement_ci_low, s.agreement_ci_high "
            f"from {SCHEMA}.{summary} s join {SCHEMA}.{t} o using (model) "
            "where s.run in ('base', 'shuffled') order by s.model, s.run"
        ),
        t,
    )
    names = {"base": "base order", "shuffled": "shuffled order"}
    frame = _intervals(
        [
            (r["model"], r["agreement_pct"], r["agreement_ci_low"], r["agreement_ci_high"])
            for r in rows
        ],
        series=[names[r["run"]] for r in rows],
    )
    frame["tip_estimate"] = [
        f"{r.label} · {r.series}: {fmt(r.estimate)}" for r in frame.itertuples()
    ]
    frame["tip_interval"] = [
        f"{r.label} · {r.series}: [{fmt(r.low)}, {fmt(r.high)}]" for r in frame.itertuples()
    ]
    return charts.interval_chart(
        frame,
        "full agreement (%)",
        domain=(0, 100),
        color="series",
        color_order=list(names.values()),
    )


def fig_language_pairs(m: Marts) -> alt.TopLevelMixin:
    """Cohen's kappa of every pair of languages, per model and run, with its interval: which
    languages answer alike, at any number of languages."""
    t = "mcq_language_pair_consistency"
    need(m, t, "model", "run", "language_a", "language_b", "cohen_kappa", "cohen_kappa_ci_low",
         "cohen_kappa_ci_high", "n_items")  # fmt: skip
    rows = _nonempty(
        m.rows(
            "select model, run, language_a, language_b, cohen_kappa, cohen_kappa_ci_low, "
            f"cohen_kappa_ci_high, n_items from {SCHEMA}.{t} "
            "where cohen_kappa is not null order by run, model, language_a, language_b"
        ),
        t,
    )
    pairs = [f"{r['language_a']}–{r['language_b']}" for r in rows]
    frame = _intervals(
        [
            (_runs_label(r["model"], r["run"]), r["cohen_kappa"], r["cohen_kappa_ci_low"],
             r["cohen_kappa_ci_high"])
            for r in rows
        ],
        pair=pairs,
    )  # fmt: skip
    frame["tip_estimate"] = [
        f"{r.label} · {r.pair}: κ = {fmt(r.estimate, 3)} ({n} items)"
        for r, n in zip(frame.itertuples(), [r["n_items"] for r in rows], strict=True)
    ]
    frame["tip_interval"] = [
        f"{r.label} · {r.pair}: [{fmt(r.low, 3)}, {fmt(r.high, 3)}]" for r in frame.itertuples()
    ]
    return charts.interval_chart(
        frame,
        "Cohen's kappa between two languages (1 = they answer alike, 0 = chance)",
        ref=0.0,
        color="pair",
        color_order=list(dict.fromkeys(pairs)),
    )


def fig_language_departures(m: Marts) -> alt.TopLevelMixin:
    """How often each language departs from the majority answer, per model and run, with its
    interval: the odd languages out at any number of languages."""
    t = "mcq_language_departures"
    need(m, t, "model", "run", "language", "departs_pct", "departs_ci_low", "departs_ci_high",
         "n_items")  # fmt: skip
    rows = _nonempty(
        m.rows(
            "select model, run, language, departs_pct, departs_ci_low, departs_ci_high, "
            f"n_items from {SCHEMA}.{t} order by run, model, language"
        ),
        t,
    )
    frame = _intervals(
        [
            (_runs_label(r["model"], r["run"]), r["departs_pct"], r["departs_ci_low"],
             r["departs_ci_high"])
            for r in rows
        ],
        language=[r["language"] for r in rows],
    )  # fmt: skip
    frame["tip_estimate"] = [
        f"{r.label} · {r.language}: departs on {fmt(r.estimate)} % of {n} items"
        for r, n in zip(frame.itertuples(), [r["n_items"] for r in rows], strict=True)
    ]
    frame["tip_interval"] = [
        f"{r.label} · {r.language}: [{fmt(r.low)}, {fmt(r.high)}]" for r in frame.itertuples()
    ]
    return charts.interval_chart(
        frame,
        "items on which the language departs from the majority answer (%)",
        domain=(0, 100),
        color="language",
        color_order=sorted(dict.fromkeys(frame["language"])),
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
                "mcq-language-pairs",
                "Language pairs",
                "Cohen's kappa of the answers of every pair of languages, per model and run, "
                "with its interval (irrCAC's standard error); 0 = chance.",
                fig_language_pairs,
            ),
            Figure(
                "mcq-language-departures",
                "Languages departing from the majority",
                "Share of complete items on which each language gives another answer than the "
                "majority of languages, per model and run, with its interval.",
                fig_language_departures,
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
