"""Kendall's W (tie-corrected) of each scenario over the raters who ranked it
(concord_stats.kendall)."""

import pandas as pd

from concord_stats.kendall import NO_VALID_RANKING, kendall_w, rank_array


def model(dbt, session):
    orders = dbt.ref("int_ranking_orders_validated").df()
    if orders.empty:
        raise ValueError(NO_VALID_RANKING)

    rater = pd.Categorical(orders["rater_id"])
    scenario = pd.Categorical(orders["scenario_id"])
    shape = (len(rater.categories), len(scenario.categories), int(orders["n_tasks"].max()))
    ranks = rank_array(rater.codes, scenario.codes, orders["task_index"], orders["position"], shape)
    n_tasks = orders.groupby(scenario.codes)["n_tasks"].first()
    n_raters = orders.groupby(scenario.codes)["rater_id"].nunique()

    frames = []
    for size, group in n_tasks.groupby(n_tasks):  # scenarios with the same number of tasks
        profiles = ranks[:, group.index, :size].transpose(1, 0, 2)  # (scenario, rater, task)
        frames.append(
            pd.DataFrame(
                {
                    "scenario_id": scenario.categories[group.index],
                    "n_raters": n_raters[group.index].to_numpy(),
                    "n_tasks": int(size),
                    "kendall_w": kendall_w(profiles),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)
