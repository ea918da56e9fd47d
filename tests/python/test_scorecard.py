"""model_scorecard on the shipped study: each figure is the one its own mart reports (read,
never computed again), the rater figure is the mean of the rater study's pair kappas, the
order effect is the language whose answers moved most, and a study without gold or probe
runs leaves those figures null, never 0. The pooled accuracy is checked against its
definition on a planted study with gold (test_mcq_any_languages) and against a cluster
bootstrap (test_consistency)."""

from __future__ import annotations

import pandas as pd
import pytest

pytestmark = pytest.mark.warehouse


@pytest.fixture
def scorecard(marts):
    return marts.sql("select * from marts.model_scorecard").df().set_index("run_id")


def test_one_row_per_model_under_the_baseline_variant_with_the_summarys_figures(marts, scorecard):
    summary = (
        marts.sql("select * from marts.mcq_agreement_summary_v2 where variant = 'base'")
        .df()
        .set_index("run_id")
    )
    assert sorted(scorecard.model) == sorted(summary.model) and len(scorecard) == 6
    for column in ("full_agreement_pct", "full_agreement_ci_low", "mean_pairwise_agreement_pct",
                   "mean_pairwise_agreement_ci_high", "n_complete"):  # fmt: skip
        pd.testing.assert_series_equal(
            scorecard[column].sort_index(), summary.loc[scorecard.index, column].sort_index(),
            check_dtype=False,
        )  # fmt: skip
    assert scorecard.loc[scorecard.model == "GPT-4o", "full_agreement_pct"].item() == 50.0
    by_variant = marts.sql("select variant, count(*) from marts.model_scorecard_by_variant "
                           "group by all order by all").fetchall()  # fmt: skip
    assert by_variant == [("base", 6), ("shuffled", 2)]


def test_as_a_rater_the_mean_of_its_pair_kappas_with_the_other_models(marts, scorecard):
    pairs = marts.sql(
        "select * from marts.rater_pair_agreement where dataset in "
        "('models_as_raters_en', 'models_as_raters_it', 'models_as_raters_fa')"
    ).df()
    for _, row in scorecard.iterrows():
        mine = pairs[(pairs.rater_id == row.model) | (pairs.other_rater_id == row.model)]
        assert row.rater_n_pairs == len(mine) == 15  # 5 other models x 3 languages
        assert row.rater_mean_cohen_kappa == pytest.approx(mine.cohen_kappa.mean(), abs=1e-12)


def test_the_order_effect_is_the_language_that_moved_most(marts, scorecard):
    effect = marts.sql("select * from marts.mcq_order_effect_v2").df()
    for run_id, row in scorecard.iterrows():
        mine = effect[effect.baseline_run_id == run_id].sort_values(["same_option_pct", "language"])
        if mine.empty:  # no shuffled run of this model
            assert row.order_effect_variant is None and pd.isna(row.order_effect_same_option_pct)
            continue
        worst = mine.iloc[0]
        assert (row.order_effect_variant, row.order_effect_language) == ("shuffled", worst.language)
        assert row.order_effect_same_option_pct == worst.same_option_pct
        assert (row.order_effect_ci_low, row.order_effect_ci_high) == (worst.ci_low, worst.ci_high)
    assert scorecard.order_effect_variant.notna().sum() == 2  # GPT-4o and LLaMA 3.1 70B


def test_without_gold_or_probe_runs_those_figures_are_null(scorecard):
    for column in ("accuracy_pct", "accuracy_ci_low", "n_gold_items", "all_correct_pct",
                   "probe_run_id", "probe_mean_delta_vs_baseline"):  # fmt: skip
        assert scorecard[column].isna().all(), column
    assert (scorecard.source_kind == "wide_csv").all()
    assert (scorecard.model_as_landed == scorecard.model).all()
