"""Per run, task and language: how well the option distributions the source scored are
calibrated against gold, on the scored items with a gold: the Brier score and the expected
calibration error on the top option (concord_stats.consistency), of the softmax of the
summed log-likelihoods and of the softmax of the length-normalised ones. It reads the
counts per confidence bin (int_mcq_calibration_binned, counted in SQL), never a row per
option score."""

import numpy as np
import pandas as pd

from concord_models.frames import to_pandas
from concord_stats.consistency import calibration_error_from_bins

GROUP = ["run_id", "task", "language"]
# each distribution's figures go in the columns with this suffix
SUFFIX = {"summed": "", "length_normalised": "_norm"}
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


def calibration(bins: pd.DataFrame) -> dict:
    """One run, task, language and distribution: its bins' counts -> n, Brier, ECE. An
    item without a confidence (no probability at all) has no bin: the ECE is undefined."""
    n = int(bins["n_items"].sum())
    ece = (
        float("nan")
        if bins["calibration_bin"].isna().any()
        else calibration_error_from_bins(
            bins["n_items"].to_numpy(), bins["n_correct"].to_numpy(),
            bins["confidence_sum"].to_numpy(float),
        )
    )  # fmt: skip
    # the bins' sums added in bin order: the same bits on every build
    brier = float(np.sum(bins["squared_error_sum"].to_numpy(float))) / n
    return {"n_items": n, "brier_score": brier, "expected_calibration_error": ece}


def model(dbt, session):
    dbt.config(materialized="table")
    binned = to_pandas(dbt.ref("int_mcq_calibration_binned"))
    binned = binned.sort_values([*GROUP, "distribution", "calibration_bin"], na_position="last")
    rows = []
    for key, group in binned.groupby(GROUP, sort=True):
        row = dict(zip(GROUP, key, strict=True))
        for distribution, bins in group.groupby("distribution", sort=True):
            suffix = SUFFIX[distribution]
            figures = calibration(bins)
            row["n_items"] = figures["n_items"]
            row[f"brier_score{suffix}"] = figures["brier_score"]
            row[f"expected_calibration_error{suffix}"] = figures["expected_calibration_error"]
        rows.append(row)
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype(COLUMNS)
