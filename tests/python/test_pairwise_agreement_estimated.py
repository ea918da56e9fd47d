"""int_mcq_pairwise_agreement_estimated reads each influence once with its items: its sum
of squares is, to the bit, math.fsum over every item's square (what it read before, one row
per item), so the standard errors do not move."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from python_models import python_model


def _model():
    return python_model("int_mcq_pairwise_agreement_estimated")


def test_the_sum_of_squares_of_counted_influences_is_fsum_over_every_item():
    model = _model()
    rng = np.random.default_rng(7)
    for size in (1, 3, 40, 2_000):
        # influences of mixed signs and scales, a few with many items each
        influences = rng.normal(0, 1e-5, size) * rng.choice([1, 1e-3, 1e3], size)
        n_items = rng.integers(1, 5_000, size)
        every_item = np.repeat(influences, n_items)
        expected = math.fsum(every_item**2)
        assert model.sum_of_squares(influences, n_items) == expected  # to the bit


def test_a_runs_standard_error_counts_every_item_of_each_influence():
    model = _model()
    # a complete run of 3 languages (P = 3 pairs), M = 5 items: agreeing pairs 3, 3, 1, 1, 0
    agreeing = np.array([3, 3, 1, 1, 0])
    m, p = len(agreeing), 3
    per_item = (agreeing * m - agreeing.sum()) / (m * m) / p
    counted = pd.DataFrame(
        {"influence": [per_item[0], per_item[2], per_item[4]], "n_items": [2, 2, 1],
         "n_language_pairs": p, "mean_pairwise_agreement_pct": 100 * agreeing.mean() / p}
    )  # fmt: skip
    row = model.agreement(counted, 1.959963984540054, 0.95)
    expected_se = 100 * math.sqrt(m / (m - 1) * math.fsum(per_item**2))
    assert row["n_items_paired"] == m
    assert row["std_error"] == expected_se
    # the delta method's variance of a mean of per-item shares: var(A / P) / M
    shares = agreeing / p
    assert row["std_error"] == pytest.approx(100 * shares.std(ddof=1) / math.sqrt(m), rel=1e-12)
    z = 1.959963984540054
    assert row["ci_low"] == max(0.0, row["mean_pairwise_agreement_pct"] - z * expected_se)
