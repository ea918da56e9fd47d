import pandas as pd

from concord_common.settings import dbt_vars
from concord_io.frames import to_pandas
from concord_stats.agreement import disagreement_rate_statistics
from concord_stats.bootstrap import bootstrap, derive_seed
from concord_stats.entropy import shannon_entropy


def model(dbt, session):
    """Percentile bootstrap of each model and run's agreement %, disagreement %,
    all-different % and per-language choice entropy. Every statistic here depends only on
    counts, so resampled counts are drawn directly (multinomial) instead of resampling items;
    each cell draws from its own stream derived from the base seed. The three rates of a model
    and run share one stream, so they are computed on the same resamples (disagreement is
    100 − agreement in every replicate)."""
    dbt.config(materialized="table")
    n_resamples, confidence, seed, types = dbt_vars(
        dbt.config.get("vars"),
        "bootstrap_resamples",
        "bootstrap_confidence",
        "bootstrap_seed",
        "mcq_disagreement_types",
    )
    settings = {"n_resamples": n_resamples, "confidence": confidence}
    type_counts = to_pandas(dbt.ref("int_mcq_types_counted"))
    option_counts = to_pandas(dbt.ref("int_mcq_options_counted"))

    cells = []  # (model, run, metric, counts, statistic, stream)
    count_columns = [f"n_{t}" for t in [*types, "incomplete"]]
    for metric, statistic in disagreement_rate_statistics(types).items():
        for cell in type_counts.itertuples(index=False):
            counts = [getattr(cell, c) for c in count_columns]
            cells.append((cell.model, cell.run, metric, counts, statistic, "outcome_rates"))
    for (model_name, run, language), cell in option_counts.groupby(["model", "run", "language"]):
        counts = cell.sort_values("option")["n_presented"].to_numpy()
        if counts.sum() > 0:  # no valid answer in a language: no distribution to describe
            metric = f"entropy_{language}_bits"
            cells.append((model_name, run, metric, counts, shannon_entropy, metric))

    rows = [
        {
            "model": name,
            "run": run,
            "metric": metric,
            **bootstrap(
                counts, statistic, seed=derive_seed(seed, name, run, stream), **settings
            ).summary(),
        }
        for name, run, metric, counts, statistic, stream in cells
    ]
    return pd.DataFrame(rows).assign(**settings, seed=seed)
