"""int_rater_coefficients_estimated reads a row per item (int_rater_items_coded), not a row
per rating: the rating matrix it rebuilds is, code for code, the pivot of the ratings it read
before, so every coefficient and bootstrap interval stays as it was."""

from __future__ import annotations

import numpy as np
import pandas as pd
from python_models import python_model


def _model():
    return python_model("int_rater_coefficients_estimated")


def _as_item_rows(long: pd.DataFrame, labels: list[str], raters: list[str]) -> pd.DataFrame:
    """What int_rater_items_coded makes of `long`: positions in `labels`, in `raters`' order."""
    position = {label: i for i, label in enumerate(labels)}
    cells = long.assign(code=long["category"].map(position).astype(str))
    wide = cells.pivot(index="item_id", columns="rater_id", values="code")
    wide = wide.reindex(columns=raters).fillna("-1")
    rows = pd.DataFrame({"item_id": wide.index, "codes": wide.agg(",".join, axis=1).to_numpy()})
    return rows.sample(frac=1, random_state=3)  # a relation has no order


def _pivoted(long: pd.DataFrame, categories: list[str]) -> tuple[np.ndarray, list[str]]:
    """The matrix as the model built it from one row per rating (pandas' pivot)."""
    code = {label: i for i, label in enumerate(categories)}
    wide = (
        long.assign(code=long["category"].map(code))
        .pivot(index="item_id", columns="rater_id", values="code")
        .sort_index(axis=1)
    )
    return wide.fillna(-1).to_numpy(dtype=np.int64), list(wide.columns)


def test_the_matrix_from_item_rows_is_the_pivot_of_the_ratings():
    model = _model()
    rng = np.random.default_rng(11)
    # numeric labels whose text order is not their numeric order, raters in no sorted order
    labels = ["10", "2", "3", "7"]
    raters = ["r_b", "r_a", "r_c", "a"]
    items = [f"i{n}" for n in rng.permutation(40)]
    long = pd.DataFrame(
        [(item, rater, rng.choice(labels)) for item in items for rater in raters
         if rng.random() < 0.7],
        columns=["item_id", "rater_id", "category"],
    )  # fmt: skip
    long = long[long.groupby("item_id")["rater_id"].transform("size") > 0]
    used = sorted(set(long["rater_id"]), key=raters.index)

    codes, categories, values, got_raters = model.rating_matrix(
        _as_item_rows(long, labels, used), labels, used
    )
    assert categories == ["2", "3", "7", "10"]
    np.testing.assert_array_equal(values, [2.0, 3.0, 7.0, 10.0])
    expected, expected_raters = _pivoted(long, categories)
    assert got_raters == expected_raters == sorted(used)
    np.testing.assert_array_equal(codes, expected)
    assert (codes == -1).any()  # missing ratings stay missing


def test_a_datasets_rows_from_item_rows_equal_those_from_the_ratings():
    model = _model()
    rng = np.random.default_rng(5)
    labels = ["no", "maybe", "yes"]
    raters = ["m1", "m2", "m3"]
    long = pd.DataFrame(
        [(f"q{i:02d}", rater, rng.choice(labels)) for i in range(30) for rater in raters],
        columns=["item_id", "rater_id", "category"],
    )
    rows = model.dataset_rows(
        "d", _as_item_rows(long, labels, raters), labels, raters, "identity", 200, 0.95, 42
    )
    codes, categories = _pivoted(long, sorted(labels))[0], sorted(labels)
    coefficients, _ = model.dataset_coefficients(
        codes, len(categories), weights="identity", values=None, n_resamples=200,
        confidence=0.95, seed=model.derive_seed(42, "rater_coefficients", "d"),
    )  # fmt: skip
    fleiss = next(c for c in coefficients if c.coefficient == "fleiss_kappa")
    (index,) = rows.index[
        (rows["coefficient"] == "fleiss_kappa") & (rows["weights"] == fleiss.weights)
    ]
    got = rows.loc[index]
    assert got["estimate"] == fleiss.interval.estimate
    assert (got["ci_low"], got["ci_high"]) == (fleiss.interval.ci_low, fleiss.interval.ci_high)
    assert got["n_items"] == 30 and got["n_raters"] == 3
