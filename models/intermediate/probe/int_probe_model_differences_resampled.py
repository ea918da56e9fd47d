from concord_models.frames import paired_summaries, to_pandas


def model(dbt, session):
    """Per pair of runs (models) and group: a bootstrap interval of the mean difference of
    their paired deltas (resampling messages) and a sign-flip p-value of mean difference = 0
    (the two models' labels swapped within messages; exact when 2^n <= probe_permutations,
    else Monte Carlo: the marts state its standard error). The inputs are
    the per-message differences, the sufficient statistic of both procedures."""
    dbt.config(materialized="table")
    pairs = to_pandas(dbt.ref("int_probe_model_deltas_paired"))
    keys = ["run_id_a", "run_id_b", "group_name"]
    return paired_summaries(pairs, keys, "delta_difference", dbt.config.get("vars"))
