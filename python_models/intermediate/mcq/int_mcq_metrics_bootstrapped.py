import numpy as np
import pandas as pd

from concord_stats.agreement import share_pct
from concord_stats.bootstrap import bootstrap_counts, derive_seed
from concord_stats.entropy import shannon_entropy


def model(dbt, session):
    """Percentile bootstrap of each model and run's agreement %, disagreement %,
    all-different % and per-language choice entropy. Every statistic here depends only on
    counts, so resampled counts are drawn directly (multinomial) instead of resampling items."""
    dbt.config(materialized="table")
    n_resamples = int(dbt.config.get("n_resamples"))
    confidence = float(dbt.config.get("confidence"))
    seed = int(dbt.config.get("seed"))
    types = dbt.config.get("disagreement_types").split(",")
    type_counts = dbt.ref("int_mcq_types_counted").df()
    option_counts = dbt.ref("int_mcq_options_counted").df()

    # counts per item outcome: the complete types, then incomplete
    outcomes = [*types, "incomplete"]
    complete = list(range(len(types)))
    full = [types.index("all_same")]
    not_full = [i for i in complete if i not in full]
    all_different = [types.index("all_different")]
    rate_metrics = {
        "agreement_pct": lambda c: share_pct(c, full, complete),
        "disagreement_pct": lambda c: share_pct(c, not_full, complete),
        "all_different_pct": lambda c: share_pct(c, all_different, complete),
    }

    rows = []
    for cell in type_counts.itertuples(index=False):
        counts = np.array([getattr(cell, f"n_{o}") for o in outcomes])
        for metric, statistic in rate_metrics.items():
            rows.append(
                {
                    "model": cell.model,
                    "run": cell.run,
                    "metric": metric,
                    **_boot(
                        counts,
                        statistic,
                        n_resamples,
                        confidence,
                        derive_seed(seed, cell.model, cell.run, metric),
                    ),
                }
            )
    for (model_name, run, language), cell in option_counts.groupby(["model", "run", "language"]):
        counts = cell.sort_values("option")["n_presented"].to_numpy()
        metric = f"entropy_{language}_bits"
        if counts.sum() == 0:
            continue  # no valid answer in this language: no distribution to describe
        rows.append(
            {
                "model": model_name,
                "run": run,
                "metric": metric,
                **_boot(
                    counts,
                    shannon_entropy,
                    n_resamples,
                    confidence,
                    derive_seed(seed, model_name, run, metric),
                ),
            }
        )
    frame = pd.DataFrame(rows)
    frame["n_resamples"] = n_resamples
    frame["confidence"] = confidence
    frame["seed"] = seed
    return frame


def _boot(counts, statistic, n_resamples, confidence, seed):
    return bootstrap_counts(
        counts, statistic, n_resamples=n_resamples, confidence=confidence, seed=seed
    )
