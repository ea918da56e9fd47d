import numpy as np
import pandas as pd

from concord_common.settings import dbt_vars
from concord_models.frames import to_pandas
from concord_stats.agreement import share_pct
from concord_stats.bootstrap import bootstrap, derive_seed


def model(dbt, session):
    """Share of items whose answer under a variant points to the same option as the baseline
    run's answer of the same model revision, per run, task and language, with a percentile
    bootstrap interval (resampling the paired items, drawn as binomial counts)."""
    dbt.config(materialized="table")
    n_resamples, confidence, seed = dbt_vars(
        dbt.config.get("vars"), "bootstrap_resamples", "bootstrap_confidence", "bootstrap_seed"
    )
    pairs = to_pandas(dbt.ref("int_mcq_runs_paired"))
    rows = []
    for cell in pairs.itertuples(index=False):
        counts = np.array([cell.n_same_option, cell.n_paired - cell.n_same_option])
        result = bootstrap(
            counts,
            lambda c: share_pct(c, [0], [0, 1]),
            n_resamples=n_resamples,
            confidence=confidence,
            seed=derive_seed(seed, cell.run_id, cell.task, cell.language, "same_option_pct"),
        ).summary()
        rows.append(
            {
                "run_id": cell.run_id,
                "baseline_run_id": cell.baseline_run_id,
                "task": cell.task,
                "language": cell.language,
                "n_paired": cell.n_paired,
                "n_same_option": cell.n_same_option,
                "same_option_pct": result["estimate"],
                "ci_low": result["ci_low"],
                "ci_high": result["ci_high"],
            }
        )
    # typed even when empty (no model revision has a baseline and another variant): the
    # mart's contract checks types
    dtypes = {
        "run_id": "string",
        "baseline_run_id": "string",
        "task": "string",
        "language": "string",
        "n_paired": "int64",
        "n_same_option": "int64",
        "same_option_pct": "float64",
        "ci_low": "float64",
        "ci_high": "float64",
    }
    return pd.DataFrame(rows, columns=list(dtypes)).astype(dtypes)
