import pandas as pd
import pyarrow as pa

from concord_common.settings import dbt_vars
from concord_io.frames import to_pandas
from concord_stats.bootstrap import derive_seed
from concord_stats.paired import paired_summary

SCHEMA = pa.schema(
    [
        ("run_id_a", pa.string()),
        ("run_id_b", pa.string()),
        ("group_name", pa.string()),
        ("n_messages", pa.int64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
        ("confidence", pa.float64()),
        ("n_resamples", pa.int64()),
        ("p_value", pa.float64()),
        ("n_permutations", pa.int64()),
        ("permutation_exact", pa.bool_()),
        ("seed", pa.int64()),
    ]
)


def model(dbt, session):
    """Per pair of runs (models) and group: a bootstrap interval of the mean difference of
    their paired deltas (resampling messages) and a sign-flip p-value of mean difference = 0
    (the two models' labels swapped within messages; exact when 2^n <= probe_permutations,
    else Monte Carlo: the marts state its standard error). The inputs are
    the per-message differences, the sufficient statistic of both procedures."""
    dbt.config(materialized="table")
    n_resamples, confidence, seed, n_permutations = dbt_vars(
        dbt.config.get("vars"),
        "bootstrap_resamples",
        "bootstrap_confidence",
        "bootstrap_seed",
        "probe_permutations",
    )
    pairs = to_pandas(dbt.ref("int_probe_model_deltas_paired"))

    rows = []
    keys = ["run_id_a", "run_id_b", "group_name"]
    for (run_id_a, run_id_b, group_name), cell in pairs.groupby(keys, sort=True):
        d = cell.sort_values("msg_id")["delta_difference"].to_numpy(dtype=float)
        summary = paired_summary(
            d,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=derive_seed(seed, run_id_a, run_id_b, group_name),
            n_permutations=n_permutations,
        )
        cell_key = {"run_id_a": run_id_a, "run_id_b": run_id_b, "group_name": group_name}
        rows.append({**cell_key, **summary, "seed": seed})
    frame = pd.DataFrame(rows, columns=SCHEMA.names)
    # pandas (Arrow dtypes keep the types when empty): dbt-spark and Databricks take no Arrow table
    typed = pa.Table.from_pandas(frame, schema=SCHEMA, preserve_index=False)
    return typed.to_pandas(types_mapper=pd.ArrowDtype)
