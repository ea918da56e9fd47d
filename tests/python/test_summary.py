"""The summary that `concord build` prints last (concord_io.cli.summary): each task's runs by
full agreement with its interval, mean pairwise agreement and Fleiss' kappa, from
mcq_agreement_summary_v2."""

from __future__ import annotations

import duckdb
from test_report import serving_file

from concord_io.cli.summary import ACCURACY_HEADER, summarise

HEADER = "Cross-lingual agreement per task and run (full %, interval, pairwise %, kappa):"


def agreement_lines(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(HEADER) + 1
    end = next(
        (i for i, line in enumerate(lines[start:], start) if not line.startswith("  ")),
        len(lines),
    )
    return lines[start:end]


def test_summary_shows_each_runs_agreement(warehouse):
    with duckdb.connect(str(warehouse), read_only=True) as con:
        rows = con.execute(
            "select task, model, variant, full_agreement_pct, full_agreement_ci_low, "
            "full_agreement_ci_high, mean_pairwise_agreement_pct, fleiss_kappa "
            "from marts.mcq_agreement_summary_v2 where model_revision is null "
            "order by task, full_agreement_pct desc, model, variant"
        ).fetchall()
    shown = agreement_lines(summarise(warehouse))
    assert len(shown) == len(rows) == 8
    for line, (task, model, variant, pct, low, high, pairwise, kappa) in zip(
        shown, rows, strict=True
    ):
        assert line.split()[0] == task and f" {model} ({variant}) " in line, line
        assert f" {pct:5.1f} %  [{low:5.1f}, {high:5.1f}]  {pairwise:5.1f} %  κ {kappa:6.3f}" in (
            line
        )


def test_summary_of_a_run_without_a_complete_item(tmp_path):
    """A run with no complete item has no rates: dashes, not a crash; a revision is named.
    A run answered in one language (100 % by definition) comes after the runs that compare
    languages, labelled: it compares nothing (it came first, at 100 % [100, 100])."""
    database = serving_file(
        tmp_path / "build.duckdb",
        {
            "mcq_agreement_summary_v2": "select * from (values "
            "('xcopa', 'model-y', 'v2', 'base', null, null, null, null, null, 2, 0), "
            "('xcopa', 'model-z', null, 'base', 100.0, 100.0, 100.0, null, null, 1, 11), "
            "('xcopa', 'model-x', null, 'base', 50.0, 40.0, 60.0, 70.0, 0.25, 3, 10)) "
            "as t(task, model, model_revision, variant, full_agreement_pct, "
            "full_agreement_ci_low, full_agreement_ci_high, mean_pairwise_agreement_pct, "
            "fleiss_kappa, n_languages, n_items)"
        },
    )
    assert agreement_lines(summarise(database)) == [
        "  xcopa        model-x (base)                50.0 %  [ 40.0,  60.0]   70.0 %  κ  0.250"
        "  (3 languages, 10 items)",
        "  xcopa        model-y @ v2 (base)              – %  [    –,     –]      – %  κ      –"
        "  (2 languages, 0 items)",
        "  xcopa        model-z (base)               100.0 %  [100.0, 100.0]      – %  κ      –"
        "  (1 language, 11 items: nothing compared across languages)",
    ]


def test_summary_shows_accuracy_as_the_harness_prints_it(tmp_path, warehouse):
    """Runs graded against gold: acc and acc_norm ± standard error per task, run and
    language, with Brier and ECE (a dash where the run scored no options); a task without
    gold is left out, and the shipped study has none, so its summary has no such block."""
    database = serving_file(
        tmp_path / "build.duckdb",
        {
            "mcq_accuracy": "select * from (values "
            "('xgold', 'LM A', null, 'base', 'it', 3, 3, 33.33333, 33.33333, 66.66667, 33.33333, "
            "0.61, 0.125), "
            "('xgold', 'LM A', null, 'base', 'en', 3, 3, 100.0, 0.0, null, null, null, null), "
            "('xcloze', 'LM A', null, 'base', 'en', 0, 0, null, null, null, null, null, null)) "
            "as t(task, model, model_revision, variant, language, n_gold_items, n_items, "
            "accuracy_pct, "
            "accuracy_std_error, accuracy_norm_pct, accuracy_norm_std_error, brier_score, "
            "expected_calibration_error)"
        },
    )
    text = summarise(database).splitlines()
    start = text.index(ACCURACY_HEADER)
    assert text[start + 1 : start + 3] == [
        "  xgold        LM A (base)                  en     n     3  acc 100.0 ±  0.0  "
        "acc_norm     – ±    –  Brier     –  ECE     –",
        "  xgold        LM A (base)                  it     n     3  acc  33.3 ± 33.3  "
        "acc_norm  66.7 ± 33.3  Brier 0.610  ECE 0.125",
    ]
    assert ACCURACY_HEADER not in summarise(warehouse)
