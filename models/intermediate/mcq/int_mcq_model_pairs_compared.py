"""Per task, variant and pair of runs (two models, or two revisions of one, under the same
variant): each run's full agreement on the items both answered completely, their difference
with a seeded paired bootstrap interval (resampling items, drawn as the pair's 2 × 2 table),
the discordant counts and the exact McNemar p-value, Holm-adjusted over the pairs of each
task and variant (concord_models.frames.model_pair_comparisons). The input is each pair's
2 × 2 table of items answered alike in every language, the sufficient statistic of every
figure."""

from concord_models.frames import model_pair_comparisons, to_pandas


def model(dbt, session):
    dbt.config(materialized="table")
    return model_pair_comparisons(
        to_pandas(dbt.ref("int_mcq_model_pairs_counted")),
        ["task", "variant", "run_id_a", "run_id_b"],
        share="full_agreement_pct",
        # Holm within each task and variant: the family is its pairs of runs
        family=["task", "variant"],
        stream="mcq_model_comparison",
        passed_vars=dbt.config.get("vars"),
        # the languages both runs have, which the items were compared in
        carried=("n_languages",),
    )
