"""Dataset-level agreement: Fleiss' and Randolph's kappa, Krippendorff's alpha (nominal) and a
percentile bootstrap interval of Fleiss' kappa resampling items (concord_stats.rater)."""

import pandas as pd

from concord_io.settings import dbt_vars
from concord_stats.rater import agreement_summary


def model(dbt, session):
    n_resamples, confidence, seed = dbt_vars(
        dbt.config.get("vars"), "bootstrap_resamples", "bootstrap_confidence", "bootstrap_seed"
    )
    counts = dbt.ref("int_rater_counts_aggregated").df()

    rows = []
    for dataset, long in counts.groupby("dataset", sort=True):
        matrix = long.pivot(index="item_id", columns="category", values="n_ratings")
        summary = agreement_summary(
            matrix.to_numpy(), matrix.shape[1], n_resamples, confidence, seed
        )
        rows.append({"dataset": dataset, **summary, "bootstrap_confidence": confidence})
    return pd.DataFrame(rows).astype({"null_reason": "string"})
