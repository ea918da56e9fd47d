"""Per task, variant, pair of runs and language: each run's accuracy (%) on the items with
a gold both answered, their difference with a seeded paired bootstrap interval (resampling
items, drawn as the pair's 2 × 2 table), the discordant counts and the exact McNemar
p-value, Holm-adjusted within each task and variant over its pairs of runs × languages
(concord_models.frames.model_pair_comparisons). The input is each pair's 2 × 2 table of items
answered correctly, the sufficient statistic of every figure."""

from concord_models.frames import model_pair_comparisons, to_pandas


def model(dbt, session):
    dbt.config(materialized="table")
    return model_pair_comparisons(
        to_pandas(dbt.ref("int_mcq_model_accuracy_pairs_counted")),
        ["task", "variant", "run_id_a", "run_id_b", "language"],
        share="accuracy_pct",
        # the family: every pair of runs and language of the task and variant
        family=["task", "variant"],
        stream="mcq_model_accuracy_comparison",
        passed_vars=dbt.config.get("vars"),
    )
