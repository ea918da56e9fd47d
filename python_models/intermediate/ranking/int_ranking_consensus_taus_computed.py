"""Tau-b of each rater's ranks against each consensus, per scenario: the ordered-task
document's A matrix, one row per (rater, scenario, method) (concord_stats.kendall)."""

import numpy as np
import pandas as pd

from concord_stats.kendall import NO_VALID_RANKING, rank_array, tau_b


def model(dbt, session):
    orders = dbt.ref("int_ranking_orders_validated").df()
    if orders.empty:
        raise ValueError(NO_VALID_RANKING)
    consensus = dbt.ref("int_ranking_consensus_built").df()
    tasks = orders[["scenario_id", "task_id", "task_index", "n_tasks"]].drop_duplicates()
    consensus = consensus.merge(tasks, on=["scenario_id", "task_id"], validate="many_to_one")

    rater = pd.Categorical(orders["rater_id"])
    scenario = pd.Categorical(orders["scenario_id"])
    method = pd.Categorical(consensus["method"])
    n_tasks = int(orders["n_tasks"].max())
    ranks = rank_array(
        rater.codes,
        scenario.codes,
        orders["task_index"],
        orders["position"],
        (len(rater.categories), len(scenario.categories), n_tasks),
    )
    consensus_ranks = rank_array(
        method.codes,
        pd.Categorical(consensus["scenario_id"], categories=scenario.categories).codes,
        consensus["task_index"],
        consensus["position"],
        (len(method.categories), len(scenario.categories), n_tasks),
    )
    # taus[rater, method, scenario]; NaN where the rater did not rank the scenario.
    taus = tau_b(ranks[:, None], consensus_ranks[None, :])
    i, m, q = np.nonzero(~np.isnan(taus))
    return pd.DataFrame(
        {
            "rater_id": rater.categories[i],
            "scenario_id": scenario.categories[q],
            "method": method.categories[m],
            "tau_b": taus[i, m, q],
        }
    )
