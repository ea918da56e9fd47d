import numpy as np
import pandas as pd

from concord_common.settings import dbt_vars
from concord_models.frames import engine_threads, to_pandas
from concord_stats.agreement import disagreement_rate_statistics
from concord_stats.bootstrap import bootstrap_many, derive_seed
from concord_stats.entropy import shannon_entropy
from concord_stats.rater_coefficients import fleiss_kappa_of_patterns


def option_counts_of(patterns: pd.Series) -> np.ndarray:
    """Patterns (each the sorted list of the options an item's languages chose) as counts,
    patterns x options."""
    lengths = patterns.map(len).to_numpy()
    chosen = np.concatenate([np.asarray(pattern, dtype=str) for pattern in patterns])
    _, option = np.unique(chosen, return_inverse=True)
    counts = np.zeros((len(patterns), int(option.max()) + 1), dtype=np.int64)
    np.add.at(counts, (np.repeat(np.arange(len(patterns)), lengths), option), 1)
    return counts


def model(dbt, session):
    """Percentile bootstrap of each run and task's full-agreement %, disagreement % and
    no-majority %, of its Fleiss' kappa with the languages as raters, and of each language's
    choice entropy (bits, of the presented-position counts). Every statistic here depends
    only on counts (the kappa on how many items show each pattern of option counts), so
    resampled counts are drawn directly (multinomial) instead of resampling items; each cell
    draws from its own stream derived from the base seed and the cell's key (model, variant,
    task, language). The three rates of a run share one stream, so they are computed on the
    same resamples (disagreement is 100 − full agreement in every replicate)."""
    dbt.config(materialized="table")
    n_resamples, confidence, seed, types = dbt_vars(
        dbt.config.get("vars"),
        "bootstrap_resamples",
        "bootstrap_confidence",
        "bootstrap_seed",
        "mcq_disagreement_types",
    )
    settings = {"bootstrap_resamples": n_resamples, "bootstrap_confidence": confidence}
    type_counts = to_pandas(dbt.ref("int_mcq_types_counted"))
    option_counts = to_pandas(dbt.ref("int_mcq_options_counted"))
    patterns = to_pandas(dbt.ref("int_mcq_option_patterns_counted"))

    cells = []  # (run key, language, metric, counts, statistic, stream)
    count_columns = [f"n_{t}" for t in [*types, "incomplete"]]
    for metric, statistic in disagreement_rate_statistics(types).items():
        for cell in type_counts.itertuples(index=False):
            counts = [getattr(cell, c) for c in count_columns]
            key = (cell.run_id, cell.model, cell.variant, cell.task)
            cells.append((key, None, metric, counts, statistic, ("outcome_rates",)))
    runs = type_counts.set_index(["run_id", "task"])
    for (run_id, task), run in patterns.groupby(["run_id", "task"], sort=True):
        # the patterns in one order whatever order the rows arrive in: the multinomial's
        # categories, so the same seed draws the same resamples on every build
        run = run.iloc[sorted(range(len(run)), key=lambda i: tuple(run["pattern"].iloc[i]))]
        model_name, variant = runs.loc[(run_id, task), ["model", "variant"]]
        kappa = fleiss_kappa_of_patterns(option_counts_of(run["pattern"]))
        items = run["n_items"].to_numpy()
        cells.append(((run_id, model_name, variant, task), None, "fleiss_kappa", items, kappa,
                      ("fleiss_kappa",)))  # fmt: skip
    grouped = option_counts.groupby(["run_id", "model", "variant", "task", "language"])
    for (run_id, model_name, variant, task, language), cell in grouped:
        counts = cell.sort_values("option_position")["n_position"].to_numpy()
        if counts.sum() > 0:  # no valid answer in a language: no distribution to describe
            key = (run_id, model_name, variant, task)
            cells.append((key, language, "entropy_bits", counts, shannon_entropy, (language,)))

    # every cell draws from its own stream: on the engine's threads, the same intervals
    intervals = bootstrap_many(
        [
            (counts, statistic, derive_seed(seed, model_name, variant, task, *stream))
            for (_, model_name, variant, task), _, _, counts, statistic, stream in cells
        ],
        n_resamples=n_resamples,
        confidence=confidence,
        threads=engine_threads(session),
    )
    rows = []
    for ((run_id, _, _, task), language, metric, *_), drawn in zip(cells, intervals, strict=True):
        # the row's key with run_id and task: the metric, and a per-language one's language
        # (metric names hold no ':'), a key that BI tools can join on where language is null
        metric_key = metric if language is None else f"{metric}:{language}"
        rows.append(
            {"run_id": run_id, "task": task, "language": language, "metric": metric}
            | {"metric_key": metric_key}
            | drawn.summary()
        )
    columns = ["run_id", "task", "language", "metric", "metric_key", "estimate", "boot_mean",
               "ci_low", "ci_high"]  # fmt: skip
    frame = pd.DataFrame(rows, columns=columns).astype({"language": "string"})
    return frame.assign(**settings, bootstrap_seed=seed)
