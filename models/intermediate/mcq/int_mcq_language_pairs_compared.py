"""Per run, task and pair of languages: how alike the two languages answer on the items
both answered (agreement and Cohen's kappa with irrCAC's standard error) and, where the
source scored every option, how alike they rank and weigh the options (RankC, Jensen-Shannon
divergence in bits). Each figure with a normal-approximation interval from its standard
error over items (concord_stats.consistency). Inputs are the sufficient statistics: each
pair's contingency table of chosen options (780 pairs at 40 languages, each K × K, however
many items), and each pair's mean and standard deviation of the per-item RankC and
divergence (int_mcq_language_pairs_scored, computed in SQL from the option scores)."""

from statistics import NormalDist

import numpy as np
import pandas as pd

from concord_common.settings import dbt_vars
from concord_models.frames import to_pandas
from concord_stats.consistency import cohen_kappa_tables, normal_interval

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


def contingency(counted: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """The pairs (their keys, in order) and their K × K tables of option counts."""
    options = np.sort(pd.unique(counted[["option_a", "option_b"]].to_numpy().ravel()))
    pairs = counted[KEYS].drop_duplicates().sort_values(KEYS).reset_index(drop=True)
    index = counted.merge(pairs.reset_index(), on=KEYS)["index"].to_numpy()
    tables = np.zeros((len(pairs), len(options), len(options)))
    np.add.at(
        tables,
        (
            index,
            np.searchsorted(options, counted["option_a"].to_numpy()),
            np.searchsorted(options, counted["option_b"].to_numpy()),
        ),
        counted["n_items"].to_numpy(),
    )
    return pairs, tables


def model(dbt, session):
    dbt.config(materialized="table")
    (confidence,) = dbt_vars(dbt.config.get("vars"), "bootstrap_confidence")
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    counted = to_pandas(dbt.ref("int_mcq_language_pairs_counted"))
    scored = to_pandas(dbt.ref("int_mcq_language_pairs_scored"))
    pairs, tables = contingency(counted)
    n = tables.sum(axis=(1, 2))
    share = np.trace(tables, axis1=1, axis2=2) / np.maximum(n, 1)
    # the standard error of a mean of 0/100 outcomes (sample sd / √n), as mean_interval
    with np.errstate(divide="ignore", invalid="ignore"):
        agreement_se = np.where(n > 1, 100 * np.sqrt(share * (1 - share) / (n - 1)), np.nan)
    kappa, kappa_se = cohen_kappa_tables(tables)
    frame = pairs.assign(
        n_items=n.astype("int64"),
        agreement_pct=100 * share,
        agreement_ci_low=100 * share - z * agreement_se,
        agreement_ci_high=100 * share + z * agreement_se,
        cohen_kappa=kappa,
        cohen_kappa_std_error=kappa_se,
        cohen_kappa_ci_low=kappa - z * kappa_se,
        cohen_kappa_ci_high=kappa + z * kappa_se,
        confidence=confidence,
    )
    # the option-score figures, where both languages scored items
    frame = frame.merge(scored, on=KEYS, how="left")
    frame["n_scored_items"] = frame["n_scored_items"].fillna(0)
    for name in ("rank_c", "js_divergence"):
        mean, sd = frame[f"{name}_mean"].to_numpy(float), frame[f"{name}_std_dev"].to_numpy(float)
        _, low, high = normal_interval(mean, sd, frame["n_scored_items"].to_numpy(), confidence)
        frame[name], frame[f"{name}_ci_low"], frame[f"{name}_ci_high"] = mean, low, high
    return frame[list(COLUMNS)].astype(COLUMNS)
