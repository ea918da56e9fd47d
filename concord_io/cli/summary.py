"""Print where the warehouse is and a short summary of its marts (run by `make build`),
ending with the input rows each study quarantined (listed in marts.dq_quarantine)."""

from __future__ import annotations

import argparse
from pathlib import Path

from concord_io.connect import connect_build
from concord_io.errors import printable, run_main
from concord_io.paths import build_db_path
from concord_io.serving.publish import CURRENT_DB, CURRENT_PARQUET, SCHEMA

QUARANTINE = "dq_quarantine"
AGREEMENT = "mcq_agreement_summary_v2"
ACCURACY = "mcq_accuracy"
ACCURACY_HEADER = (
    "Accuracy against gold per task, run and language, as the harness's acc and acc_norm "
    "(%, ± standard error), with the Brier score and expected calibration error:"
)


def quarantine_counts(con) -> dict[str, int]:
    """Rows in marts.dq_quarantine per study ({} when the mart is not built)."""
    found = con.execute(
        "select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
        [SCHEMA, QUARANTINE],
    ).fetchone()[0]
    if not found:
        return {}
    return dict(
        con.execute(
            f"select study, count(*) from {SCHEMA}.{QUARANTINE} group by study order by study"
        ).fetchall()
    )


def agreement_lines(con) -> list[str]:
    """Each task's runs (model revision and prompt variant) by full agreement, with its
    interval, then the mean pairwise agreement and Fleiss' kappa of the languages, and what
    each figure is over (languages, items). A run answered in one language compares
    nothing across languages: its figures (100 % by definition) are shown with that count,
    after the runs that compare two or more (docs/cross-lingual.md)."""
    lines = ["Cross-lingual agreement per task and run (full %, interval, pairwise %, kappa):"]
    for (
        task,
        model,
        revision,
        variant,
        pct,
        low,
        high,
        pairwise,
        kappa,
        langs,
        items,
    ) in con.execute(
        "select task, model, model_revision, variant, full_agreement_pct, "
        "full_agreement_ci_low, full_agreement_ci_high, mean_pairwise_agreement_pct, "
        f"fleiss_kappa, n_languages, n_items from {SCHEMA}.{AGREEMENT} "
        "order by task, n_languages < 2, full_agreement_pct desc nulls last, model, "
        "model_revision, variant"
    ).fetchall():
        run = f"{model} @ {revision}" if revision else model
        over = f"{langs} language{'s' if langs != 1 else ''}, {items} items"
        lines.append(
            f"  {printable(task):<12} {printable(f'{run} ({variant})'):<28} "
            f"{_number(pct, '5.1f')} %  [{_number(low, '5.1f')}, {_number(high, '5.1f')}]  "
            f"{_number(pairwise, '5.1f')} %  κ {_number(kappa, '6.3f')}  ({over}"
            + (": nothing compared across languages)" if langs < 2 else ")")
        )
    return lines


def accuracy_lines(con) -> list[str]:
    """Each task's runs and languages graded against gold (none: no lines): acc and acc_norm
    with their standard errors, as lm-evaluation-harness prints them (here in percent), and
    the calibration of the option probabilities where the run scored its options."""
    rows = con.execute(
        "select task, model, model_revision, variant, language, n_items, accuracy_pct, "
        "accuracy_std_error, accuracy_norm_pct, accuracy_norm_std_error, brier_score, "
        f"expected_calibration_error from {SCHEMA}.{ACCURACY} where n_gold_items > 0 "
        "order by task, model, model_revision, variant, language"
    ).fetchall()
    if not rows:
        return []
    lines = [ACCURACY_HEADER]
    for task, model, revision, variant, language, n, acc, se, norm, norm_se, brier, ece in rows:
        run = f"{model} @ {revision}" if revision else model
        lines.append(
            f"  {printable(task):<12} {printable(f'{run} ({variant})'):<28} "
            f"{printable(language):<6} n {n:>5}  acc {_number(acc, '5.1f')} ± "
            f"{_number(se, '4.1f')}  acc_norm {_number(norm, '5.1f')} ± "
            f"{_number(norm_se, '4.1f')}  Brier {_number(brier, '5.3f')}  "
            f"ECE {_number(ece, '5.3f')}"
        )
    return lines


def _number(value, spec: str) -> str:
    """``value`` formatted, or a dash right-aligned in its place (no complete item)."""
    return format(value, spec) if value is not None else "–".rjust(int(spec.split(".")[0]))


def summarise(
    database: Path, serving_dir: Path | None = None, report_dir: Path | None = None
) -> str:
    lines = [f"Warehouse (build file): {database.resolve()}"]
    if serving_dir is not None and (serving_dir / CURRENT_DB).exists():
        lines.append(f"Serving file (connect here): {(serving_dir / CURRENT_DB).absolute()}")
        lines.append(f"Parquet exports: {(serving_dir / CURRENT_PARQUET).absolute()}")
    if report_dir is not None and (report_dir / "index.html").exists():
        lines.append(f"Report: {(report_dir / 'index.html').absolute()}")
    with connect_build(database) as con:
        marts = con.execute(
            "select table_name from information_schema.tables "
            "where table_schema = ? order by table_name",
            [SCHEMA],
        ).fetchall()
        lines.append(f"{len(marts)} marts in schema {SCHEMA}:")
        for (name,) in marts:
            (n_rows,) = con.execute(f'select count(*) from {SCHEMA}."{name}"').fetchone()
            lines.append(f"  {printable(name):<36} {n_rows:>8} rows")
        if (AGREEMENT,) in marts:
            lines.extend(agreement_lines(con))
        if (ACCURACY,) in marts:
            lines.extend(accuracy_lines(con))
        quarantined = quarantine_counts(con)
    if quarantined:
        lines.append(
            "WARNING: quarantined input rows (set aside, not counted; see "
            f"{SCHEMA}.{QUARANTINE}): "
            + ", ".join(f"{printable(study)} {n}" for study, n in quarantined.items())
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", type=Path, default=None, help="default: CONCORD_DB_PATH")
    parser.add_argument("--serving-dir", type=Path, default=None)
    parser.add_argument("--report-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    print(summarise(args.database or build_db_path(), args.serving_dir, args.report_dir))
    return 0


if __name__ == "__main__":
    run_main(main)
