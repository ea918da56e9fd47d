"""Consensus order of each scenario's tasks by three methods (concord_stats.consensus):
position_mode (the method's position-wise mode, repaired into a permutation), borda and
kemeny (exact up to KEMENY_MAX_EXACT tasks, a local-search heuristic beyond)."""

import numpy as np
import pandas as pd

from concord_models.frames import ranking_cube, to_pandas
from concord_stats.consensus import KEMENY_MAX_EXACT, borda, kemeny, position_mode

METHODS = {"position_mode": position_mode, "borda": borda, "kemeny": kemeny}


def model(dbt, session):
    orders = to_pandas(dbt.ref("int_ranking_orders_validated"))
    cube = ranking_cube(orders)
    ranks, scenarios = cube.ranks, cube.scenarios
    keys = zip(cube.scenario_index, orders["task_index"], strict=True)
    task_ids = dict(zip(keys, orders["task_id"], strict=True))
    n_tasks = orders.groupby(cube.scenario_index)["n_tasks"].first()

    rows = []
    for size, group in n_tasks.groupby(n_tasks):  # scenarios with the same number of tasks
        profiles = ranks[:, group.index, :size].transpose(1, 0, 2)  # (scenario, rater, task)
        for method, consensus in METHODS.items():
            task_order = np.argsort(consensus(profiles), axis=-1)
            for q, task_indices in zip(group.index, task_order, strict=True):
                for position, t in enumerate(task_indices, start=1):
                    rows.append(
                        {
                            "scenario_id": scenarios[q],
                            "method": method,
                            "position": position,
                            "task_id": task_ids[(q, t)],
                            "is_exact": method != "kemeny" or size <= KEMENY_MAX_EXACT,
                        }
                    )
    return pd.DataFrame(rows)
