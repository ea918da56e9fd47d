"""Tau-b of each rater's ranks against each consensus, per scenario: the ordered-task
method's A matrix, one row per (rater, scenario, method) (concord_stats.kendall)."""

import numpy as np
import pandas as pd

from concord_models.frames import ranking_cube, to_pandas
from concord_stats.kendall import rank_array, tau_b


def model(dbt, session):
    orders = to_pandas(dbt.ref("int_ranking_orders_validated"))
    cube = ranking_cube(orders)
    consensus = to_pandas(dbt.ref("int_ranking_consensus_built"))
    tasks = orders[["scenario_id", "task_id", "task_index", "n_tasks"]].drop_duplicates()
    consensus = consensus.merge(tasks, on=["scenario_id", "task_id"], validate="many_to_one")

    method = pd.Categorical(consensus["method"])
    ranks = cube.ranks
    consensus_ranks = rank_array(
        method.codes,
        pd.Categorical(consensus["scenario_id"], categories=cube.scenarios).codes,
        consensus["task_index"],
        consensus["position"],
        (len(method.categories), *ranks.shape[1:]),
    )
    # taus[rater, method, scenario]; NaN where the rater did not rank the scenario.
    taus = tau_b(ranks[:, None], consensus_ranks[None, :])
    i, m, q = np.nonzero(~np.isnan(taus))
    return pd.DataFrame(
        {
            "rater_id": cube.raters[i],
            "scenario_id": cube.scenarios[q],
            "method": method.categories[m],
            "tau_b": taus[i, m, q],
        }
    )
