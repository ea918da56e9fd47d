"""Per task, variant and pair of runs (two models, or two revisions of one, under the same
variant): each run's full agreement on the items both answered completely, their difference
with a seeded paired bootstrap interval (resampling items, drawn as the pair's 2 × 2 table),
the discordant counts and the exact McNemar p-value, Holm-adjusted over the pairs of each
task and variant (concord_stats.consistency). The input is each pair's 2 × 2 table of items
answered alike in every language, the sufficient statistic of every figure."""

import numpy as np
import pandas as pd

from concord_common.settings import dbt_vars
from concord_io.frames import to_pandas
from concord_stats.bootstrap import bootstrap, derive_seed
from concord_stats.consistency import exact_mcnemar, holm

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


def difference_pp(counts: np.ndarray) -> np.ndarray:
    """Full agreement of run a minus run b, in points, from (only a, only b, the rest)."""
    counts = np.asarray(counts, dtype=float)
    return 100.0 * (counts[..., 0] - counts[..., 1]) / counts.sum(axis=-1)


def model(dbt, session):
    dbt.config(materialized="table")
    n_resamples, confidence, seed = dbt_vars(
        dbt.config.get("vars"), "bootstrap_resamples", "bootstrap_confidence", "bootstrap_seed"
    )
    counted = to_pandas(dbt.ref("int_mcq_model_pairs_counted")).sort_values(KEYS)
    rows = []
    for pair in counted.itertuples(index=False):
        n, only_a, only_b = int(pair.n_items), int(pair.n_only_a), int(pair.n_only_b)
        # the difference depends on the items only through the 2 x 2 table: resampling
        # items is drawing the table from the multinomial (docs/formulas.md, the bootstrap)
        difference = bootstrap(
            np.array([only_a, only_b, n - only_a - only_b]),
            difference_pp,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=derive_seed(seed, "mcq_model_comparison", *(getattr(pair, k) for k in KEYS)),
        )
        rows.append(
            {
                **{k: getattr(pair, k) for k in KEYS},
                "n_items": n,
                "full_agreement_pct_a": 100.0 * (pair.n_both + only_a) / n,
                "full_agreement_pct_b": 100.0 * (pair.n_both + only_b) / n,
                "difference_pp": float(difference.estimate),
                "ci_low": float(difference.ci_low),
                "ci_high": float(difference.ci_high),
                "n_only_a": only_a,
                "n_only_b": only_b,
                "p_value": exact_mcnemar(only_a, only_b),
                "bootstrap_confidence": confidence,
                "bootstrap_resamples": n_resamples,
            }
        )
    frame = pd.DataFrame(rows, columns=[c for c in COLUMNS if c != "p_value_holm"])
    # Holm within each task and variant: the family is its pairs of runs
    frame["p_value_holm"] = np.nan
    for _, index in frame.groupby(["task", "variant"]).groups.items():
        frame.loc[index, "p_value_holm"] = holm(frame.loc[index, "p_value"].to_numpy(float))
    return frame[list(COLUMNS)].astype(COLUMNS)
