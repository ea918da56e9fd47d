"""mcq_model_comparison against an independent computation from the item-level fact: the
same paired items, each model's full agreement, the discordant counts, the exact McNemar
p-value (statsmodels) and Holm's adjustment within each task and variant (statsmodels'
multipletests),
and a paired bootstrap interval that contains the difference."""

from __future__ import annotations

import itertools

import pytest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests


def test_model_comparison_matches_statsmodels_on_the_fact_table(marts):
    items = marts.execute(
        "select run_id, variant as run, item_id, full_agreement "
        "from marts.fct_mcq_item_agreement_v2 where disagreement_type <> 'incomplete'"
    ).df()
    got = marts.execute("select * from marts.mcq_model_comparison").df()
    assert set(got.task) == {"xcloze"}
    want = []
    for run, in_run in items.groupby("run"):
        by_model = {
            m: g.set_index("item_id")["full_agreement"] for m, g in in_run.groupby("run_id")
        }
        for a, b in itertools.combinations(sorted(by_model), 2):
            both = by_model[a].to_frame("a").join(by_model[b].to_frame("b"), how="inner")
            only_a = int((both.a & ~both.b).sum())
            only_b = int((both.b & ~both.a).sum())
            table = [
                [int((both.a & both.b).sum()), only_a],
                [only_b, int((~both.a & ~both.b).sum())],
            ]
            p = mcnemar(table, exact=True).pvalue if only_a + only_b else 1.0
            want.append((a, b, run, len(both), 100 * both.a.mean(), 100 * both.b.mean(),
                         only_a, only_b, p))  # fmt: skip
    assert len(got) == len(want) > 10
    got = got.rename(columns={"variant": "run"}).set_index(["run_id_a", "run_id_b", "run"])
    for a, b, run, n, pct_a, pct_b, only_a, only_b, p in want:
        row = got.loc[(a, b, run)]
        assert (row.n_items, row.n_only_a, row.n_only_b) == (n, only_a, only_b), (a, b, run)
        assert (row.full_agreement_pct_a, row.full_agreement_pct_b) == pytest.approx((pct_a, pct_b))
        assert row.difference_pp == pytest.approx(pct_a - pct_b)
        assert row.p_value == pytest.approx(p, abs=1e-12)
        assert row.ci_low <= row.difference_pp <= row.ci_high
    for run, in_run in got.reset_index().groupby("run"):
        adjusted = multipletests(in_run["p_value"], method="holm")[1]
        assert in_run["p_value_holm"].to_numpy() == pytest.approx(adjusted, abs=1e-12), run
