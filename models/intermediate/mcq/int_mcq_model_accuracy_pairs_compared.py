"""Per task, variant, pair of runs and language: each run's accuracy (%) on the items with
a gold both answered, their difference with a seeded paired bootstrap interval (resampling
items, drawn as the pair's 2 × 2 table), the discordant counts and the exact McNemar
p-value, Holm-adjusted within each task and variant over its pairs of runs × languages
(concord_io.frames.model_pair_comparisons). The input is each pair's 2 × 2 table of items
answered correctly, the sufficient statistic of every figure."""

from concord_io.frames import model_pair_comparisons, to_pandas

KEYS = ["task", "variant", "run_id_a", "run_id_b", "language"]
COLUMNS = {
    "task": "string",
    "variant": "string",
    "run_id_a": "string",
    "run_id_b": "string",
    "language": "string",
    "n_items": "int64",
    "accuracy_pct_a": "float64",
    "accuracy_pct_b": "float64",
    "difference_pp": "float64",
    "ci_low": "float64",
    "ci_high": "float64",
    "n_only_a": "int64",
    "n_only_b": "int64",
    "p_value": "float64",
    "p_value_holm": "float64",
    "bootstrap_confidence": "float64",
    "bootstrap_resamples": "int64",
}


def model(dbt, session):
    dbt.config(materialized="table")
    compared = model_pair_comparisons(
        to_pandas(dbt.ref("int_mcq_model_accuracy_pairs_counted")),
        KEYS,
        # the family: every pair of runs and language of the task and variant
        family=["task", "variant"],
        stream="mcq_model_accuracy_comparison",
        passed_vars=dbt.config.get("vars"),
    )
    compared = compared.rename(columns={"pct_a": "accuracy_pct_a", "pct_b": "accuracy_pct_b"})
    return compared[list(COLUMNS)].astype(COLUMNS)
