"""Per task, variant and pair of runs (two models, or two revisions of one, under the same
variant): each run's full agreement on the items both answered completely, their difference
with a seeded paired bootstrap interval (resampling items), the discordant counts and the
exact McNemar p-value, Holm-adjusted over the pairs of each task and variant
(concord_stats.consistency). The inputs are the paired per-item outcomes, the
sufficient statistic of every figure."""

import numpy as np
import pandas as pd

from concord_common.settings import dbt_vars
from concord_io.frames import to_pandas
from concord_stats.bootstrap import derive_seed
from concord_stats.consistency import exact_mcnemar, holm
from concord_stats.paired import bootstrap_mean_interval

KEYS = ["task", "variant", "run_id_a", "run_id_b"]
COLUMNS = {
    "task": "string",
    "variant": "string",
    "run_id_a": "string",
    "run_id_b": "string",
    "n_items": "int64",
    "full_agreement_pct_a": "float64",
    "full_agreement_pct_b": "float64",
    "difference_pp": "float64",
    "ci_low": "float64",
    "ci_high": "float64",
    "n_only_a": "int64",
    "n_only_b": "int64",
    "p_value": "float64",
    "p_value_holm": "float64",
    "bootstrap_confidence": "float64",
    "bootstrap_resamples": "int64",
}


def model(dbt, session):
    dbt.config(materialized="table")
    n_resamples, confidence, seed = dbt_vars(
        dbt.config.get("vars"), "bootstrap_resamples", "bootstrap_confidence", "bootstrap_seed"
    )
    items = to_pandas(dbt.ref("int_mcq_model_items_paired")).sort_values([*KEYS, "item_id"])
    rows = []
    for key, pair in items.groupby(KEYS, sort=True):
        a = pair["full_agreement_a"].to_numpy(bool)
        b = pair["full_agreement_b"].to_numpy(bool)
        difference = bootstrap_mean_interval(
            100.0 * (a.astype(float) - b.astype(float)),
            n_resamples=n_resamples,
            confidence=confidence,
            seed=derive_seed(seed, "mcq_model_comparison", *key),
        )
        only_a, only_b = int((a & ~b).sum()), int((b & ~a).sum())
        rows.append(
            {
                **dict(zip(KEYS, key, strict=True)),
                "n_items": len(a),
                "full_agreement_pct_a": 100.0 * a.mean(),
                "full_agreement_pct_b": 100.0 * b.mean(),
                "difference_pp": float(difference.estimate),
                "ci_low": float(difference.ci_low),
                "ci_high": float(difference.ci_high),
                "n_only_a": only_a,
                "n_only_b": only_b,
                "p_value": exact_mcnemar(only_a, only_b),
                "bootstrap_confidence": confidence,
                "bootstrap_resamples": n_resamples,
            }
        )
    frame = pd.DataFrame(rows, columns=[c for c in COLUMNS if c != "p_value_holm"])
    # Holm within each task and variant: the family is its pairs of runs
    frame["p_value_holm"] = np.nan
    for _, index in frame.groupby(["task", "variant"]).groups.items():
        frame.loc[index, "p_value_holm"] = holm(frame.loc[index, "p_value"].to_numpy(float))
    return frame[list(COLUMNS)].astype(COLUMNS)
