"""The deprecated version-1 cross-lingual marts (views over version 2, removed in 0.3.0) equal
what Concord 0.1 published for the 60-item study: every point figure exactly, every interval
within Monte Carlo error. The snapshot in tests/fixtures/mcq_0_1_marts/ is 0.1's build of
the shipped study (`select * from marts.<mart>`), the one equality check each view has.

Why intervals move: version 2 keys each resampling stream by run, task and variant and
draws the rates from the counts of the any-language types (full agreement, one diverged,
majority, no majority, incomplete) instead of the five three-language ones, so the
bootstrap draws other resamples. A percentile bound of a share of 60 items moves in steps of
one item (100/60 pp); the tolerance is one step for percentages and 0.02 bits for entropy
(CHANGELOG.md)."""

from __future__ import annotations

import pandas as pd
import pytest

from concord_io.project import PROJECT_ROOT

SNAPSHOT = PROJECT_ROOT / "tests" / "fixtures" / "mcq_0_1_marts"
MARTS = sorted(path.stem for path in SNAPSHOT.glob("*.parquet"))
PERCENT_STEP = 100 / 60 + 1e-9
ENTROPY_TOLERANCE = 0.02
DRAWN = ("ci_low", "ci_high", "boot_mean")  # what a resample decides


def test_every_versioned_mart_has_a_snapshot():
    assert MARTS == [
        "fct_mcq_item_agreement",
        "mcq_agreement_summary",
        "mcq_bootstrap_ci",
        "mcq_choice_entropy",
        "mcq_domain_disagreement",
        "mcq_option_frequency",
        "mcq_order_effect",
    ]


@pytest.mark.parametrize("mart", MARTS)
def test_version_1_equals_what_0_1_published(marts, mart):
    published = pd.read_parquet(SNAPSHOT / f"{mart}.parquet")
    now = marts.sql(f"select * from marts.{mart}").df()
    assert list(now.columns) == list(published.columns)
    assert [str(t) for t in now.dtypes] == [str(t) for t in published.dtypes]
    keys = [c for c in published.columns if published[c].dtype == object][:3]
    if mart == "fct_mcq_item_agreement":
        keys = ["model", "run", "item_id"]
    if mart == "mcq_option_frequency":
        keys = ["model", "run", "language", "option"]
    merged = published.merge(now, on=keys, suffixes=("_0_1", ""), validate="one_to_one")
    assert len(merged) == len(published) == len(now)
    for column in published.columns:
        if column in keys:
            continue
        was, is_ = merged[f"{column}_0_1"], merged[column]
        if any(part in column for part in DRAWN):
            entropy = "entropy" in column or mart == "mcq_choice_entropy"
            if mart == "mcq_bootstrap_ci":
                entropy = merged["metric"].str.startswith("entropy_")
            tolerance = pd.Series(PERCENT_STEP, index=merged.index).where(
                ~pd.Series(entropy, index=merged.index), ENTROPY_TOLERANCE
            )
            assert ((was - is_).abs() <= tolerance).all(), column
        elif was.dtype.kind == "f":
            pd.testing.assert_series_equal(is_, was, check_names=False, rtol=0, atol=1e-12)
        else:
            pd.testing.assert_series_equal(is_, was, check_names=False)
