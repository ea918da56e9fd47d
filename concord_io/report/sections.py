"""The report's data-quality sections and the published-marts table, as plain data for the
template: quarantined rows, failing dbt tests, the link to the Great Expectations data docs.

Each section renders what its table holds when that table is published, and a short note
(``note``) when it is not, so the page never depends on a table it cannot find.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from concord_io.quality import DOCS_SITE
from concord_io.report.figures import Marts
from concord_io.serving.publish import SCHEMA

QUARANTINE = "dq_quarantine"
QUARANTINE_COLUMNS = (
    "study",
    "source",
    "source_row",
    "record_key",
    "column_name",
    "value",
    "reason",
)
QUARANTINE_SHOWN = 50  # rows listed on the page; the rest are counted
TEST_FAILURES = "dq_test_failures"


@dataclass
class Section:
    """What one section shows: ``rows`` (dicts), ``counts`` (a summary), or a ``note``
    (``absent``: the note says the table is missing, not that it has nothing to report);
    a generic table's ``headers`` (each a key of every row) and ``caption``."""

    note: str | None = None
    absent: bool = False
    counts: list[dict] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)
    n_total: int = 0
    headers: list[str] = field(default_factory=list)
    caption: str = ""

    @property
    def n_rest(self) -> int:
        return self.n_total - len(self.rows)


def quarantine(marts: Marts, shown: int = QUARANTINE_SHOWN) -> Section:
    """Counts of quarantined records per study and reason, and the first ``shown`` rows."""
    if not marts.has(QUARANTINE, *QUARANTINE_COLUMNS):
        return Section(note=f"marts.{QUARANTINE} is not published yet.", absent=True)
    table = f"{SCHEMA}.{QUARANTINE}"
    counts = marts.rows(
        f"select study, reason, count(*) as n_rows from {table} "
        "group by study, reason order by study, n_rows desc, reason"
    )
    if not counts:
        return Section(note="No input record was set aside: every row was counted.")
    rows = marts.rows(
        f"select {', '.join(QUARANTINE_COLUMNS)} from {table} "
        "order by study, source, source_row nulls last, record_key, column_name limit ?",
        [shown],
    )
    return Section(counts=counts, rows=rows, n_total=sum(c["n_rows"] for c in counts))


def failing_tests(marts: Marts) -> Section:
    """The dbt tests of the last build that did not pass, where a list of them is published.

    Reads ``marts.dq_test_failures``: one row per test that did not pass, with test_name,
    model_name (or model) and n_failures, and column_name and status where present. Absent,
    the page says so and lists nothing.
    """
    columns = marts.columns.get(TEST_FAILURES, set())
    model = next((c for c in ("model_name", "model") if c in columns), None)
    if model is None or not {"test_name", "n_failures"} <= columns:
        return Section(
            note=f"No list of failing dbt tests is published (marts.{TEST_FAILURES}).",
            absent=True,
        )
    extra = [c for c in ("column_name", "status") if c in columns]
    rows = marts.rows(
        f"select test_name, {model} as model, {', '.join(extra + ['n_failures'])} "
        f"from {SCHEMA}.{TEST_FAILURES} order by n_failures desc, model, test_name"
    )
    if not rows:
        return Section(note="Every dbt test passed in the last build.")
    return Section(rows=rows, n_total=len(rows))


ACCURACY = "mcq_accuracy"
ACCURACY_COLUMNS = (
    "task", "model", "model_revision", "variant", "language", "n_items",
    "accuracy_pct", "accuracy_std_error", "accuracy_norm_pct", "accuracy_norm_std_error",
    "brier_score", "expected_calibration_error",
)  # fmt: skip


def _fraction(pct) -> str:
    """A share in % as the harness prints it: a fraction to 4 decimals; blank when null."""
    return "" if pct is None or pct != pct else f"{pct / 100:.4f}"


def accuracy(marts: Marts) -> Section:
    """acc and acc_norm ± stderr per task, run and language, as lm-evaluation-harness prints
    them (fractions to 4 decimals), with the Brier score and the ECE: the runs with a gold."""
    if not marts.has(ACCURACY, *ACCURACY_COLUMNS):
        return Section(note=f"marts.{ACCURACY} is not published yet.", absent=True)
    rows = marts.rows(
        f"select {', '.join(ACCURACY_COLUMNS)} from {SCHEMA}.{ACCURACY} "
        "where accuracy_pct is not null "
        "order by task, model, model_revision nulls first, variant, language"
    )
    if not rows:
        return Section(
            note="No run has a gold yet: import an lm-evaluation-harness run "
            "(concord add lmeval) or give a long file's gold column."
        )
    shown = []
    for r in rows:
        revision = f" @ {r['model_revision']}" if r["model_revision"] else ""
        shown.append(
            {
                "task": r["task"],
                "run": f"{r['model']}{revision} ({r['variant']})",
                "language": r["language"],
                "n": r["n_items"],
                "acc": _fraction(r["accuracy_pct"]),
                "acc_stderr": _fraction(r["accuracy_std_error"]),
                "acc_norm": _fraction(r["accuracy_norm_pct"]),
                "acc_norm_stderr": _fraction(r["accuracy_norm_std_error"]),
                "brier": "" if r["brier_score"] is None else f"{r['brier_score']:.4f}",
                "ece": ""
                if r["expected_calibration_error"] is None
                else f"{r['expected_calibration_error']:.4f}",
            }
        )
    return Section(rows=shown, n_total=len(shown))


#: The paired comparisons of two runs of a task and variant on the items both answered:
#: (mart, what is compared, its per-run column, the grouping beside the runs, caption)
COMPARISONS = {
    "mcq": (
        "mcq_model_comparison",
        "full agreement",
        "full_agreement_pct",
        "n_languages",
        "Full agreement of two runs of a task and variant on the items both answered in every "
        "language of the task",
    ),
    "accuracy": (
        "mcq_model_accuracy_comparison",
        "accuracy",
        "accuracy_pct",
        "language",
        "Accuracy of two runs of a task and variant, per language, on the items with a gold "
        "both answered",
    ),
}
COMPARISON_COLUMNS = (
    "task", "variant", "model_a", "model_revision_a", "model_b", "model_revision_b", "n_items",
    "difference_pp", "ci_low", "ci_high", "n_only_a", "n_only_b", "p_value", "p_value_holm",
    "bootstrap_confidence",
)  # fmt: skip


def _run(model: str, revision: str | None) -> str:
    return f"{model} @ {revision}" if revision else model


def _number(value: float | None, digits: int) -> str:
    return "" if value is None or value != value else f"{value:.{digits}f}"


def comparisons(marts: Marts, study: str) -> Section:
    """The study's paired comparisons (:data:`COMPARISONS`): each pair of runs with its
    figures, the difference in percentage points with its paired bootstrap interval, the
    discordant items and the exact McNemar p-value, Holm-adjusted over the task and
    variant's comparisons; every figure beside its number of items (and, for agreement,
    of languages)."""
    table, figure, column, beside, caption = COMPARISONS[study]
    columns = (*COMPARISON_COLUMNS, beside, f"{column}_a", f"{column}_b")
    if not marts.has(table, *columns):
        return Section(note=f"marts.{table} is not published yet.", absent=True)
    rows = marts.rows(
        f"select {', '.join(columns)} from {SCHEMA}.{table} "
        f"order by task, variant, {beside}, model_a, model_b"
    )
    if not rows:
        return Section(note=f"No two runs of one task and variant to compare on {figure} yet.")
    beside_header = "languages" if beside == "n_languages" else "language"
    headers = ["task", "variant", "run A", "run B", beside_header, "items", f"{figure} A (%)",
               f"{figure} B (%)", "B − A (pp)", "interval", "only A", "only B", "McNemar p",
               "Holm p"]  # fmt: skip
    shown = [
        dict(
            zip(
                headers,
                (
                    r["task"],
                    r["variant"],
                    _run(r["model_a"], r["model_revision_a"]),
                    _run(r["model_b"], r["model_revision_b"]),
                    r[beside],
                    r["n_items"],
                    _number(r[f"{column}_a"], 1),
                    _number(r[f"{column}_b"], 1),
                    _number(r["difference_pp"], 1),
                    f"[{_number(r['ci_low'], 1)}, {_number(r['ci_high'], 1)}]",
                    r["n_only_a"],
                    r["n_only_b"],
                    _number(r["p_value"], 4),
                    _number(r["p_value_holm"], 4),
                ),  # fmt: skip
                strict=True,
            )
        )
        for r in rows
    ]
    confidence = rows[0]["bootstrap_confidence"]
    level = "" if confidence is None else f"{confidence:.0%} "
    caption = (
        f"{caption} (marts.{table}): the difference with its {level}paired bootstrap "
        "interval, the items only one run got right (or in agreement), the exact McNemar "
        "test and its Holm adjustment over the task and variant's comparisons."
    )
    return Section(rows=shown, n_total=len(shown), headers=headers, caption=caption)


SHIPPED = "dq_shipped_inputs"


@dataclass
class Shipped:
    """Which of Concord's shipped demo inputs the published data holds (dq_shipped_inputs):
    ``known`` is False where the mart is not published (an older serving file: the page
    says the shipped data may be in it)."""

    known: bool
    models: list[str] = field(default_factory=list)
    n_runs: int = 0
    rankings: bool = False

    @property
    def any(self) -> bool:
        return not self.known or bool(self.n_runs or self.rankings)


def shipped(marts: Marts) -> Shipped:
    """The shipped inputs found in the published data, recognised by content."""
    if not marts.has(SHIPPED, "study", "run_id", "model"):
        return Shipped(known=False)
    rows = marts.rows(f"select study, run_id, model from {SCHEMA}.{SHIPPED}")
    runs = {r["run_id"]: r["model"] for r in rows if r["study"] == "mcq"}
    return Shipped(
        known=True,
        models=sorted(set(runs.values())),
        n_runs=len(runs),
        rankings=any(r["study"] == "ranking" for r in rows),
    )


def quality_docs_href(out_dir: Path, quality_dir: Path | None) -> str | None:
    """Relative link from the report folder to the Great Expectations data docs, if built."""
    if quality_dir is None:
        return None
    index = Path(quality_dir) / DOCS_SITE / "index.html"
    if not index.is_file():
        return None
    return Path(os.path.relpath(index.resolve(), Path(out_dir).resolve())).as_posix()


def marts_table(marts: Marts) -> list[dict]:
    """Every published mart: name, rows, and the first sentence of its description."""
    rows = marts.rows(
        "select table_name, comment from duckdb_tables() where schema_name = ? order by table_name",
        [SCHEMA],
    )
    out = []
    for r in rows:
        (n,) = marts.con.execute(f'select count(*) from {SCHEMA}."{r["table_name"]}"').fetchone()
        first = (r["comment"] or "").split(". ")[0].strip()
        if len(first) > 180:
            first = first[:179].rsplit(" ", 1)[0] + " …"
        out.append({"name": r["table_name"], "n_rows": n, "what": first})
    return out
