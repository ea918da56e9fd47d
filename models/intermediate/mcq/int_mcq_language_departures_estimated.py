"""Per run, task and language: the share (%) of complete items on which the language
departs from the majority answer, and on which it is the odd one out, each with the
normal-approximation interval of concord_stats.consistency.mean_interval. The inputs are the
counts, the sufficient statistics of a share."""

import numpy as np
import pandas as pd

from concord_common.settings import dbt_vars
from concord_io.frames import to_pandas
from concord_stats.consistency import mean_interval

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
    for row in counts.itertuples(index=False):  # one row per run, task and language
        departs = share(int(row.n_departs), int(row.n_items), confidence)
        odd = share(int(row.n_odd_one_out), int(row.n_items), confidence)
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
                "confidence": confidence,
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype(COLUMNS)
