"""Per run, task and language: how well the option distributions the source scored are
calibrated against gold, on the scored items with a gold (int_mcq_golds_gathered): the Brier
score and the expected calibration error on the top option (concord_stats.consistency, ten
equal-width bins), of the softmax of the summed log-likelihoods and of the softmax of the
length-normalised ones (int_mcq_option_scores_normalised). The scores are read one run at
a time (frames_by); the golds, one per item and language, at once."""

import numpy as np
import pandas as pd

from concord_io.frames import frames_by, to_pandas
from concord_stats.consistency import brier_score, expected_calibration_error

ITEM = ["task", "item_id", "language"]
COLUMNS = {
    "run_id": "string",
    "task": "string",
    "language": "string",
    "n_items": "int64",
    "brier_score": "float64",
    "expected_calibration_error": "float64",
    "brier_score_norm": "float64",
    "expected_calibration_error_norm": "float64",
}


def calibration(options: pd.DataFrame) -> dict:
    """One run, task and language: its scored options (``item_id``, ``option_key``,
    ``probability``, ``probability_norm``, ``gold_option``) as items × options in the
    item's own key order, and the figures of each distribution."""
    keys = np.union1d(options["option_key"].unique(), options["gold_option"].unique())
    gold = options.groupby("item_id", sort=True)["gold_option"].first()
    column = np.searchsorted(keys, gold.to_numpy())
    figures: dict = {"n_items": len(gold)}
    for suffix, values in (("", "probability"), ("_norm", "probability_norm")):
        p = (
            options.pivot(index="item_id", columns="option_key", values=values)
            .reindex(index=gold.index, columns=keys)
            .to_numpy(float)
        )
        figures[f"brier_score{suffix}"] = brier_score(p, column)
        figures[f"expected_calibration_error{suffix}"] = expected_calibration_error(p, column)
    return figures


def model(dbt, session):
    dbt.config(materialized="table")
    gold = to_pandas(dbt.ref("int_mcq_golds_gathered"))
    gold = gold.loc[gold["gold_option"].notna(), [*ITEM, "gold_option"]]
    rows = []
    for run_id, options in frames_by(
        dbt.ref("int_mcq_option_scores_normalised"),
        "run_id",
        [*ITEM, "option_key", "probability", "probability_norm"],
    ):
        graded = options.merge(gold, on=ITEM)
        for (task, language), group in graded.groupby(["task", "language"], sort=True):
            rows.append({"run_id": run_id, "task": task, "language": language,
                         **calibration(group)})  # fmt: skip
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype(COLUMNS)
