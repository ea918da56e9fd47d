"""Kendall's W (tie-corrected) of each scenario over the raters who ranked it
(concord_stats.kendall)."""

import pandas as pd

from concord_models.frames import ranking_cube, to_pandas
from concord_stats.kendall import kendall_w


def model(dbt, session):
    orders = to_pandas(dbt.ref("int_ranking_orders_validated"))
    cube = ranking_cube(orders)
    ranks = cube.ranks
    n_tasks = orders.groupby(cube.scenario_index)["n_tasks"].first()
    n_raters = orders.groupby(cube.scenario_index)["rater_id"].nunique()

    frames = []
    for size, group in n_tasks.groupby(n_tasks):  # scenarios with the same number of tasks
        profiles = ranks[:, group.index, :size].transpose(1, 0, 2)  # (scenario, rater, task)
        frames.append(
            pd.DataFrame(
                {
                    "scenario_id": cube.scenarios[group.index],
                    "n_raters": n_raters[group.index].to_numpy(),
                    "n_tasks": int(size),
                    "kendall_w": kendall_w(profiles),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)
