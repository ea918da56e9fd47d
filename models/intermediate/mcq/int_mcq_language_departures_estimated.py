"""Per run, task and language: the share (%) of complete items on which the language
departs from the majority answer, and on which it is the odd one out, each with the
normal-approximation interval of concord_stats.consistency.mean_interval; and whether it
departs more often than the task's other languages: the exact binomial test of its count
against their mean share (on the same complete items), Holm-adjusted across the run and
task's languages. The inputs are the counts, the sufficient statistics of a share."""

import numpy as np
import pandas as pd

from concord_common.settings import dbt_vars
from concord_models.frames import to_pandas
from concord_stats.consistency import exact_binomial_test, holm, mean_interval

KEYS = ["run_id", "task", "language"]
COLUMNS = {
    "run_id": "string",
    "task": "string",
    "language": "string",
    "n_items": "int64",
    "n_no_majority": "int64",
    "n_departs": "int64",
    "departs_pct": "float64",
    "departs_ci_low": "float64",
    "departs_ci_high": "float64",
    "n_odd_one_out": "int64",
    "odd_one_out_pct": "float64",
    "odd_one_out_ci_low": "float64",
    "odd_one_out_ci_high": "float64",
    "others_departs_pct": "float64",
    "departs_p_value": "float64",
    "departs_p_value_holm": "float64",
    "confidence": "float64",
}


def share(n_hits: int, n: int, confidence: float) -> tuple[float, float, float]:
    """A share in % with its interval, from counts (the 0/1 outcomes they stand for)."""
    outcomes = np.zeros(n)
    outcomes[:n_hits] = 100.0
    mean, _, low, high, _ = mean_interval(outcomes, confidence)
    return mean, low, high


def model(dbt, session):
    dbt.config(materialized="table")
    (confidence,) = dbt_vars(dbt.config.get("vars"), "bootstrap_confidence")
    counts = to_pandas(dbt.ref("int_mcq_language_departures_counted")).sort_values(KEYS)
    rows = []
    for _, run in counts.groupby(["run_id", "task"], sort=True):
        shares = (run["n_departs"] / run["n_items"]).to_numpy(float)
        p_values = []
        for index, row in enumerate(run.itertuples(index=False)):
            departs = share(int(row.n_departs), int(row.n_items), confidence)
            odd = share(int(row.n_odd_one_out), int(row.n_items), confidence)
            # the other languages depart on the same complete items: their mean share is
            # what this language would show if it departed like them
            others = np.delete(shares, index).mean() if len(shares) > 1 else np.nan
            p_value = (
                exact_binomial_test(int(row.n_departs), int(row.n_items), others)
                if np.isfinite(others)
                else np.nan
            )
            p_values.append(p_value)
            rows.append(
                {
                    "run_id": row.run_id,
                    "task": row.task,
                    "language": row.language,
                    "n_items": row.n_items,
                    "n_no_majority": row.n_no_majority,
                    "n_departs": row.n_departs,
                    "departs_pct": departs[0],
                    "departs_ci_low": departs[1],
                    "departs_ci_high": departs[2],
                    "n_odd_one_out": row.n_odd_one_out,
                    "odd_one_out_pct": odd[0],
                    "odd_one_out_ci_low": odd[1],
                    "odd_one_out_ci_high": odd[2],
                    "others_departs_pct": 100 * others,
                    "departs_p_value": p_value,
                    "confidence": confidence,
                }
            )
        # the family: the run and task's languages
        for row, adjusted in zip(rows[-len(p_values) :], holm(np.array(p_values)), strict=True):
            row["departs_p_value_holm"] = float(adjusted)
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype(COLUMNS)
