from concord_models.frames import paired_summaries, to_pandas


def model(dbt, session):
    """Per run and group: a bootstrap interval of the mean paired delta (resampling messages)
    and a sign-flip permutation p-value (labels shuffled within messages; exact, all 2^n
    relabellings, when 2^n <= probe_permutations, i.e. up to 13 messages by default; beyond,
    probe_permutations random ones).
    Returns a typed empty table before the first probe run."""
    dbt.config(materialized="table")
    deltas = to_pandas(dbt.ref("int_probe_deltas_paired"))
    return paired_summaries(
        deltas, ["run_id", "group_name"], "delta_vs_baseline", dbt.config.get("vars")
    )
