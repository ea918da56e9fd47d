"""Mean Kendall tau-b of every ordered pair of raters over the scenarios both ranked (the
N x N matrix K of the ordered-task method, docs/formulas.md), with a percentile bootstrap
interval resampling those
scenarios (concord_stats.kendall)."""

import pandas as pd

from concord_common.settings import dbt_vars
from concord_models.frames import ranking_cube, to_pandas
from concord_stats.kendall import (
    pairwise_mean_tau_b,
    pairwise_tau_b,
    pairwise_tau_b_interval,
)


def model(dbt, session):
    n_resamples, confidence, seed = dbt_vars(
        dbt.config.get("vars"), "bootstrap_resamples", "bootstrap_confidence", "bootstrap_seed"
    )
    orders = to_pandas(dbt.ref("int_ranking_orders_validated"))
    cube = ranking_cube(orders)
    ranks = cube.ranks

    mean, count = pairwise_mean_tau_b(ranks)
    raters = list(cube.raters)
    interval = pairwise_tau_b_interval(pairwise_tau_b(ranks), n_resamples, confidence, seed)
    rows = [
        {
            "rater_id": raters[i],
            "other_rater_id": raters[j],
            "mean_tau_b": mean[i, j],
            "n_scenarios": int(count[i, j]),
            "ci_low": interval.ci_low[i, j],
            "ci_high": interval.ci_high[i, j],
            "bootstrap_confidence": confidence,
            "bootstrap_resamples": n_resamples,
        }
        for i in range(len(raters))
        for j in range(len(raters))
    ]
    return pd.DataFrame(rows)
