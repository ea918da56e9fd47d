"""Per run and task: the accuracy over all the task's languages (every graded answer of
every item with a gold), with the item as the unit of its standard error (an item's
answers in its languages are not independent): concord_stats.consistency.ratio_interval
over the sums of int_mcq_graded_items_summed, one row per run and task (counts before
Python: the driver's memory does not grow with the items). The scorecard's accuracy; per
language it is mcq_accuracy."""

import pandas as pd

from concord_common.settings import dbt_vars
from concord_models.frames import per_cell, to_pandas
from concord_stats.consistency import ratio_interval

COLUMNS = {
    "run_id": "string",
    "task": "string",
    "n_items": "int64",
    "n_graded": "int64",
    "accuracy_pct": "float64",
    "std_error": "float64",
    "ci_low": "float64",
    "ci_high": "float64",
    "confidence": "float64",
}
SUMS = ["n_items", "sum_correct", "sum_graded", "sum_correct_sq", "sum_correct_graded",
        "sum_graded_sq"]  # fmt: skip


def accuracy(cell: pd.DataFrame, confidence: float) -> dict:
    """One run and task (its one row of sums): its items' correct of graded answers,
    pooled."""
    (run,) = cell.to_dict("records")
    share, se, low, high, n = ratio_interval(*(int(run[c]) for c in SUMS), confidence)
    return {
        "n_items": n,
        "n_graded": int(run["sum_graded"]),
        "accuracy_pct": 100 * share,
        "std_error": 100 * se,
        "ci_low": 100 * low,
        "ci_high": 100 * high,
        "confidence": confidence,
    }


def model(dbt, session):
    dbt.config(materialized="table")
    (confidence,) = dbt_vars(dbt.config.get("vars"), "bootstrap_confidence")
    sums = to_pandas(dbt.ref("int_mcq_graded_items_summed"))
    return per_cell(sums, ["run_id", "task"], lambda run: accuracy(run, confidence), COLUMNS)
