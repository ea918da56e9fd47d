import numpy as np
import pandas as pd

from concord_common.settings import dbt_vars
from concord_io.frames import to_pandas
from concord_stats.agreement import share_pct
from concord_stats.bootstrap import bootstrap, derive_seed


def model(dbt, session):
    """Share of items whose shuffled-run answer points back to the same original option as
    the base-run answer, per model and language, with a percentile bootstrap interval
    (resampling the paired items, drawn as binomial counts)."""
    dbt.config(materialized="table")
    n_resamples, confidence, seed = dbt_vars(
        dbt.config.get("vars"), "bootstrap_resamples", "bootstrap_confidence", "bootstrap_seed"
    )
    pairs = to_pandas(dbt.ref("int_mcq_runs_paired"))
    rows = []
    for cell in pairs.itertuples(index=False):
        counts = np.array([cell.n_same_original, cell.n_paired - cell.n_same_original])
        result = bootstrap(
            counts,
            lambda c: share_pct(c, [0], [0, 1]),
            n_resamples=n_resamples,
            confidence=confidence,
            seed=derive_seed(seed, cell.model, cell.language, "same_original_pct"),
        ).summary()
        rows.append(
            {
                "model": cell.model,
                "language": cell.language,
                "n_paired": cell.n_paired,
                "n_same_original": cell.n_same_original,
                "same_original_pct": result["estimate"],
                "ci_low": result["ci_low"],
                "ci_high": result["ci_high"],
            }
        )
    # typed even when empty (no model has both runs): the mart's contract checks types
    dtypes = {
        "model": "string",
        "language": "string",
        "n_paired": "int64",
        "n_same_original": "int64",
        "same_original_pct": "float64",
        "ci_low": "float64",
        "ci_high": "float64",
    }
    return pd.DataFrame(rows, columns=list(dtypes)).astype(dtypes)
