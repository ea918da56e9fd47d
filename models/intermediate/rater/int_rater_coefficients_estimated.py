"""Every agreement coefficient of every rater dataset, unweighted and with its declared
weighting, with irrCAC's standard error with its z, p-value and t interval, and a seeded percentile
bootstrap over items
(concord_stats.rater_coefficients); plus Cohen's kappa and percent agreement of every rater
pair. One row per dataset, coefficient, weighting and (for pair rows) rater pair."""

import numpy as np
import pandas as pd

from concord_common.settings import dbt_vars
from concord_models.frames import (
    build_context,
    frames_by,
    group_version,
    kept_or_computed,
    last_build,
    to_pandas,
)
from concord_stats.bootstrap import derive_seed
from concord_stats.rater_coefficients import dataset_coefficients, se_inference

COLUMNS = {
    "dataset": "string",
    "coefficient": "string",
    "weights": "string",
    "rater_id": "string",
    "other_rater_id": "string",
    "estimate": "float64",
    "std_error": "float64",
    "z": "float64",
    "p_value": "float64",
    "se_ci_low": "float64",
    "se_ci_high": "float64",
    "ci_low": "float64",
    "ci_high": "float64",
    "n_items": "int64",
    "n_raters": "int64",
    "n_categories": "int64",
    "bootstrap_resamples": "int64",
    "bootstrap_undefined_resamples": "int64",
    "bootstrap_confidence": "float64",
    "null_reason": "string",
}
INFERENCE = ("z", "p_value", "se_ci_low", "se_ci_high")  # from std_error: se_inference
NO_PAIRS = "no item has two ratings: no rater pair to compare"
UNDEFINED = "0/0: chance agreement is 1 (every rating in one category)"
TWO_CATEGORIES = "the prevalence index is defined for two categories (Byrt et al. 1993)"


def ordered_categories(labels):
    """irrCAC's rule: numeric labels in numeric order scored by value, others by label, 1..K."""
    try:
        values = np.array([float(label) for label in labels])
    except ValueError:
        return sorted(labels), None
    order = np.argsort(values, kind="stable")
    return [labels[i] for i in order], values[order]


def model(dbt, session):
    n_resamples, confidence, seed = dbt_vars(
        dbt.config.get("vars"), "bootstrap_resamples", "bootstrap_confidence", "bootstrap_seed"
    )
    declared = to_pandas(dbt.ref("int_rater_categories_declared"))
    raters = to_pandas(dbt.ref("int_rater_raters_ordered"))
    datasets = to_pandas(dbt.ref("int_rater_datasets_described")).set_index("dataset")

    def in_order(frame, dataset, position, column):
        rows = frame.loc[frame["dataset"] == dataset]
        return list(rows.sort_values(position)[column])

    def matrix_of(dataset):
        """The dataset's categories and raters, in the order int_rater_items_coded codes them."""
        return (in_order(declared, dataset, "category_position", "category"),
                in_order(raters, dataset, "rater_position", "rater_id"))  # fmt: skip

    def version_of(context, dataset, items):
        weights = str(datasets.loc[dataset, "weights"])
        parameters = (*matrix_of(dataset), weights, n_resamples, confidence, seed)
        return group_version(context, dataset, items.sort_values("item_id"), *parameters)

    def compute(dataset, items):
        return dataset_rows(dataset, items, *matrix_of(dataset), datasets.loc[dataset, "weights"],
                            n_resamples, confidence, seed)  # fmt: skip

    # incremental by dataset: a dataset whose ratings, categories, weighting and build
    # context are as they were keeps its rows (its bootstrap is most of the model's time)
    items = dbt.ref("int_rater_items_coded")
    groups = frames_by(items, "dataset", ["item_id", "codes"])
    last = last_build(dbt, session, {**COLUMNS, "group_version": "string"})
    frame = kept_or_computed(groups, "dataset", last, build_context(session), version_of, compute)
    return frame.astype({**COLUMNS, "group_version": "string"})


def rating_matrix(items, labels, raters):
    """int_rater_items_coded's rows of one dataset as irrCAC's codes (items × raters, -1
    where a rater did not rate an item), items and raters sorted, with the ordered
    categories, their numeric values (or None) and the raters."""
    categories, values = ordered_categories(labels)
    # a row's codes are positions in `labels`; irrCAC's are positions in `categories`
    # (the appended -1 keeps a missing rating missing)
    recode = np.array([categories.index(label) for label in labels] + [-1], dtype=np.int64)
    items = items.sort_values("item_id")
    positions = np.array(",".join(items["codes"]).split(","), dtype=np.int64)
    by_rater = sorted(range(len(raters)), key=raters.__getitem__)
    codes = recode[positions.reshape(len(items), len(raters))[:, by_rater]]
    return codes, categories, values, [raters[i] for i in by_rater]


def dataset_rows(dataset, items, labels, raters, weights, n_resamples, confidence, seed):
    """One dataset's rows: its coefficients, then its rater pairs, typed as ``COLUMNS``."""
    codes, categories, values, raters = rating_matrix(items, labels, raters)
    weights = str(weights)
    try:
        coefficients, pairs = dataset_coefficients(
            codes,
            len(categories),
            weights=weights,
            values=values,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=derive_seed(seed, "rater_coefficients", dataset),
        )
    except ValueError as error:  # e.g. ratio weights over a category valued 0
        raise ValueError(
            f"rater dataset {dataset!r}, weights {weights!r} (seed rater_datasets): {error}"
        ) from error
    n_pairable = int(((codes >= 0).sum(axis=1) >= 2).sum())
    common = {
        "dataset": dataset,
        "n_raters": len(raters),
        "n_categories": len(categories),
        "bootstrap_resamples": n_resamples,
        "bootstrap_confidence": confidence,
    }
    rows = []
    for c in coefficients:
        reason = None
        if np.isnan(c.interval.estimate):
            reason = NO_PAIRS if n_pairable == 0 else UNDEFINED
            if c.coefficient == "prevalence_index" and len(categories) != 2:
                reason = TWO_CATEGORIES
        rows.append(
            {
                **common,
                "coefficient": c.coefficient,
                "weights": c.weights,
                "rater_id": None,
                "other_rater_id": None,
                "estimate": c.interval.estimate,
                "std_error": c.std_error,
                "ci_low": c.interval.ci_low,
                "ci_high": c.interval.ci_high,
                "n_items": len(codes),
                "bootstrap_undefined_resamples": c.interval.n_undefined,
                "null_reason": reason,
            }
        )
    for p in pairs:
        interval = p["interval"]
        undefined = bool(np.isnan(interval.estimate))
        rows.append(
            {
                **common,
                "coefficient": p["measure"],
                "weights": p["weights"],
                "rater_id": raters[p["rater_a"]],
                "other_rater_id": raters[p["rater_b"]],
                "estimate": interval.estimate,
                "std_error": np.nan,
                "ci_low": interval.ci_low,
                "ci_high": interval.ci_high,
                "n_items": p["n_items"],
                "bootstrap_undefined_resamples": interval.n_undefined,
                "null_reason": (NO_PAIRS if p["n_items"] == 0 else UNDEFINED)
                if undefined
                else None,
            }
        )
    frame = pd.DataFrame(rows, columns=[c for c in COLUMNS if c not in INFERENCE])
    inference = se_inference(
        frame["estimate"].to_numpy(float),
        frame["std_error"].to_numpy(float),
        frame["n_items"].to_numpy(float),
        confidence,
    )
    return frame.assign(**inference)[list(COLUMNS)].astype(COLUMNS)
