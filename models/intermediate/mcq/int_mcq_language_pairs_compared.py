"""Per run, task and pair of languages: how alike the two languages answer on the items
both answered (agreement and Cohen's kappa with irrCAC's standard error) and, where the
source scored every option, how alike they rank and weigh the options (RankC, Jensen-Shannon
divergence in bits). Each figure with a normal-approximation interval from its standard
error over items (concord_stats.consistency). Inputs: the paired chosen options and the
option probabilities, the sufficient statistics of every figure."""

from statistics import NormalDist

import pandas as pd

from concord_common.settings import dbt_vars
from concord_io.frames import to_pandas
from concord_stats.consistency import cohen_kappa, js_divergence, mean_interval, rank_c

KEYS = ["run_id", "task", "language_a", "language_b"]
COLUMNS = {
    **{key: "string" for key in KEYS},
    "n_items": "int64",
    "agreement_pct": "float64",
    "agreement_ci_low": "float64",
    "agreement_ci_high": "float64",
    "cohen_kappa": "float64",
    "cohen_kappa_std_error": "float64",
    "cohen_kappa_ci_low": "float64",
    "cohen_kappa_ci_high": "float64",
    "n_scored_items": "int64",
    "rank_c": "float64",
    "rank_c_ci_low": "float64",
    "rank_c_ci_high": "float64",
    "js_divergence": "float64",
    "js_divergence_ci_low": "float64",
    "js_divergence_ci_high": "float64",
    "confidence": "float64",
}


def distributions(probabilities: pd.DataFrame) -> dict[tuple, pd.DataFrame]:
    """Per run, task and language: items × options (the item's own key order), NaN where
    an item lacks an option."""
    return {
        key: frame.pivot(index="item_id", columns="option_key", values="probability")
        for key, frame in probabilities.groupby(["run_id", "task", "language"], sort=True)
    }


def model(dbt, session):
    dbt.config(materialized="table")
    (confidence,) = dbt_vars(dbt.config.get("vars"), "bootstrap_confidence")
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    pairs = to_pandas(dbt.ref("int_mcq_language_items_paired"))
    scored = distributions(to_pandas(dbt.ref("int_mcq_option_scores_normalised")))
    rows = []
    for key, pair in pairs.groupby(KEYS, sort=True):
        run_id, task, language_a, language_b = key
        a, b = pair["option_a"].to_numpy(str), pair["option_b"].to_numpy(str)
        agreement = mean_interval(100.0 * (a == b), confidence)
        kappa, kappa_se = cohen_kappa(a, b)
        row = {
            **dict(zip(KEYS, key, strict=True)),
            "n_items": len(pair),
            "agreement_pct": agreement[0],
            "agreement_ci_low": agreement[2],
            "agreement_ci_high": agreement[3],
            "cohen_kappa": kappa,
            "cohen_kappa_std_error": kappa_se,
            "cohen_kappa_ci_low": kappa - z * kappa_se,
            "cohen_kappa_ci_high": kappa + z * kappa_se,
            "n_scored_items": 0,
            "confidence": confidence,
        }
        first = scored.get((run_id, task, language_a))
        second = scored.get((run_id, task, language_b))
        if first is not None and second is not None:
            items = first.index.intersection(second.index)
            options = first.columns.union(second.columns).sort_values()
            p_a = first.reindex(index=items, columns=options).to_numpy(float)
            p_b = second.reindex(index=items, columns=options).to_numpy(float)
            for name, values in (("rank_c", rank_c(p_a, p_b)), ("js_divergence",
                                 js_divergence(p_a, p_b))):  # fmt: skip
                mean, _, low, high, n = mean_interval(values, confidence)
                row |= {name: mean, f"{name}_ci_low": low, f"{name}_ci_high": high}
                row["n_scored_items"] = n
        rows.append(row)
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype(COLUMNS)
