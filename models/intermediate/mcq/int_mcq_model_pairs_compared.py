"""Per task, variant and pair of runs (two models, or two revisions of one, under the same
variant): each run's full agreement on the items both answered completely, their difference
with a seeded paired bootstrap interval (resampling items, drawn as the pair's 2 × 2 table),
the discordant counts and the exact McNemar p-value, Holm-adjusted over the pairs of each
task and variant (concord_io.frames.model_pair_comparisons). The input is each pair's
2 × 2 table of items answered alike in every language, the sufficient statistic of every
figure."""

from concord_io.frames import model_pair_comparisons, to_pandas

KEYS = ["task", "variant", "run_id_a", "run_id_b"]
COLUMNS = {
    "task": "string",
    "variant": "string",
    "run_id_a": "string",
    "run_id_b": "string",
    "n_items": "int64",
    "full_agreement_pct_a": "float64",
    "full_agreement_pct_b": "float64",
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
        to_pandas(dbt.ref("int_mcq_model_pairs_counted")),
        KEYS,
        # Holm within each task and variant: the family is its pairs of runs
        family=["task", "variant"],
        stream="mcq_model_comparison",
        passed_vars=dbt.config.get("vars"),
    )
    compared = compared.rename(
        columns={"pct_a": "full_agreement_pct_a", "pct_b": "full_agreement_pct_b"}
    )
    return compared[list(COLUMNS)].astype(COLUMNS)
