"""Per run and task: the mean pairwise agreement with its normal-approximation interval,
from the items' influences (int_mcq_pairwise_agreement_linearised: each influence with its
items): SE² = M/(M − 1) · Σ u_i² over the M items entering any pair. The sum is exact
(each influence's square, a float, times its items, added as fractions) and rounded once,
the float math.fsum gives over every item's square, so the figure does not depend on the
order the rows arrive in; z from statistics.NormalDist (no scipy in a dbt Python model).
Read one run at a time (concord_models.frames.frames_by)."""

import math
from fractions import Fraction
from statistics import NormalDist

import pandas as pd

from concord_common.settings import dbt_vars
from concord_models.frames import frames_by, per_cell

COLUMNS = {
    "run_id": "string",
    "task": "string",
    "n_language_pairs": "int64",
    "n_items_paired": "int64",
    "mean_pairwise_agreement_pct": "float64",
    "std_error": "float64",
    "ci_low": "float64",
    "ci_high": "float64",
    "confidence": "float64",
}


def sum_of_squares(influences, n_items) -> float:
    """Σ u_i² over every item, the ``n_items[k]`` items of influence ``influences[k]``
    each: every square (rounded to a float, as numpy squares) times its items, summed
    exactly, rounded once (what math.fsum over each item's square returns)."""
    pairs = zip(influences, n_items, strict=True)
    return float(sum((Fraction(float(u) * float(u)) * int(n) for u, n in pairs), Fraction(0)))


def agreement(run: pd.DataFrame, z: float, confidence: float) -> dict:
    """One run and task, from its items' influences, each with its items (every row
    carries the task's estimate): the estimate with its standard error and interval."""
    m = int(run["n_items"].sum())
    estimate = float(run["mean_pairwise_agreement_pct"].iloc[0])
    se = (
        100 * math.sqrt(m / (m - 1) * sum_of_squares(run["influence"], run["n_items"]))
        if m > 1
        else math.nan
    )
    return {
        "n_language_pairs": int(run["n_language_pairs"].iloc[0]),
        "n_items_paired": m,
        "mean_pairwise_agreement_pct": estimate,
        "std_error": se,
        # an interval never leaves the range a share can take
        "ci_low": max(0.0, estimate - z * se),
        "ci_high": min(100.0, estimate + z * se),
        "confidence": confidence,
    }


def model(dbt, session):
    dbt.config(materialized="table")
    (confidence,) = dbt_vars(dbt.config.get("vars"), "bootstrap_confidence")
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    columns = ["task", "influence", "n_items", "n_language_pairs", "mean_pairwise_agreement_pct"]
    runs = frames_by(dbt.ref("int_mcq_pairwise_agreement_linearised"), "run_id", columns)
    cells = [
        per_cell(items, ["run_id", "task"], lambda run: agreement(run, z, confidence), COLUMNS)
        for _, items in runs
    ]
    if not cells:  # no run pairs a language: the typed empty table
        return per_cell(pd.DataFrame(columns=["run_id", "task"]), ["run_id", "task"], dict, COLUMNS)
    return pd.concat(cells, ignore_index=True)
