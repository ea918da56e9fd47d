"""Fleiss' (1971) kappa of each declared category of each dataset (concord_stats.rater)."""

import pandas as pd

from concord_models.frames import frames_by
from concord_stats.rater import category_kappas


def model(dbt, session):
    counts = dbt.ref("int_rater_counts_aggregated")

    frames = []
    for dataset, long in frames_by(counts, "dataset", ["item_id", "category", "n_ratings"]):
        matrix = long.pivot(index="item_id", columns="category", values="n_ratings")
        kappas = category_kappas(matrix.to_numpy())
        frames.append(pd.DataFrame({"dataset": dataset, "category": matrix.columns, **kappas}))
    if not frames:
        columns = ["dataset", "category", "n_ratings", "category_share", "category_kappa"]
        return pd.DataFrame(columns=[*columns, "null_reason"])
    return pd.concat(frames, ignore_index=True).astype({"null_reason": "string"})
