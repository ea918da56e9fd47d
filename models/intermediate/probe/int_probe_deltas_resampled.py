import pandas as pd
import pyarrow as pa

from concord_common.settings import dbt_vars
from concord_io.frames import to_pandas
from concord_stats.bootstrap import derive_seed
from concord_stats.paired import paired_summary

SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
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
    """Per run and group: a bootstrap interval of the mean paired delta (resampling messages)
    and a sign-flip permutation p-value (labels shuffled within messages; exact, all 2^n
    relabellings, when 2^n <= probe_permutations, i.e. up to 13 messages by default; beyond,
    probe_permutations random ones).
    Returns a typed empty table before the first probe run."""
    dbt.config(materialized="table")
    n_resamples, confidence, seed, n_permutations = dbt_vars(
        dbt.config.get("vars"),
        "bootstrap_resamples",
        "bootstrap_confidence",
        "bootstrap_seed",
        "probe_permutations",
    )
    deltas = to_pandas(dbt.ref("int_probe_deltas_paired"))

    rows = []
    for (run_id, group_name), cell in deltas.groupby(["run_id", "group_name"], sort=True):
        d = cell.sort_values("msg_id")["delta_vs_baseline"].to_numpy(dtype=float)
        summary = paired_summary(
            d,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=derive_seed(seed, run_id, group_name),
            n_permutations=n_permutations,
        )
        rows.append({"run_id": run_id, "group_name": group_name, **summary, "seed": seed})
    frame = pd.DataFrame(rows, columns=SCHEMA.names)
    # pandas, which dbt's Python materialization on Spark accepts (Arrow it does not); Arrow
    # dtypes keep the columns typed when there is no row
    typed = pa.Table.from_pandas(frame, schema=SCHEMA, preserve_index=False)
    return typed.to_pandas(types_mapper=pd.ArrowDtype)
