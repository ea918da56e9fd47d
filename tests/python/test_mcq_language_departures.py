"""mcq_language_departures on the shipped study, against an independent pandas computation
from the normalised answers and against the three-language disagreement types it
generalises (one diverged with fa departing is 0.1's `fa_diverged`)."""

from __future__ import annotations

import math

import pytest


def test_departures_match_pandas_and_the_three_language_types(marts):
    answers = marts.execute(
        "select model, variant as run, item_id, language, chosen_option, is_valid "
        "from marts.fct_mcq_answers"
    ).df()
    languages = sorted(answers["language"].unique())
    got = marts.execute("select *, variant as run from marts.mcq_language_departures").df()
    got = got.set_index(["model", "run", "language"])
    types = (
        marts.execute(
            "select model, variant, coalesce(departing_languages, disagreement_type) as kind, "
            "count(*) as n from marts.fct_mcq_item_agreement_v2 group by all"
        )
        .df()
        .set_index(["model", "variant", "kind"])["n"]
    )
    for (model, run), group in answers.groupby(["model", "run"]):
        wide = group.pivot(index="item_id", columns="language", values="chosen_option")
        valid = group.pivot(index="item_id", columns="language", values="is_valid")
        complete = wide[valid.reindex(columns=languages).fillna(False).all(axis=1)]
        for language in languages:
            departs = odd = 0
            for _, row in complete.iterrows():
                counts = row.value_counts()
                top, held = counts.index[0], int(counts.iloc[0])
                if 2 * held > len(languages) and row[language] != top:
                    departs += 1
                    odd += held == len(languages) - 1 and len(languages) >= 3
            found = got.loc[(model, run, language)]
            assert (found.n_items, found.n_departs, found.n_odd_one_out) == (
                len(complete),
                departs,
                odd,
            ), (model, run, language)
            assert found.n_odd_one_out == types.get((model, run, language), 0)
            assert found.n_no_majority == types.get((model, run, "no_majority"), 0)
            share = 100 * departs / len(complete)
            half = 1.959963984540054 * math.sqrt(
                sum((x - share) ** 2 for x in [100] * departs + [0] * (len(complete) - departs))
                / (len(complete) - 1)
                / len(complete)
            )
            assert (found.departs_ci_low, found.departs_pct, found.departs_ci_high) == (
                pytest.approx((share - half, share, share + half))
            )


def test_the_departure_test_is_scipys_binomial_test_holm_adjusted_by_statsmodels(marts):
    """Each language's departures against the other languages' mean share on the same
    items: scipy's exact binomial test, Holm-adjusted over the run's languages."""
    from scipy.stats import binomtest
    from statsmodels.stats.multitest import multipletests

    got = marts.execute("select * from marts.mcq_language_departures").df()
    assert len(got) == 8 * 3
    for _, run in got.groupby(["run_id", "task"]):
        share = run["n_departs"] / run["n_items"]
        others = (share.sum() - share) / (len(run) - 1)
        want = [
            binomtest(int(k), int(n), p).pvalue
            for k, n, p in zip(run["n_departs"], run["n_items"], others, strict=True)
        ]
        assert run["others_departs_pct"].to_numpy() == pytest.approx(100 * others.to_numpy())
        assert run["departs_p_value"].to_numpy() == pytest.approx(want, abs=1e-12)
        assert run["departs_p_value_holm"].to_numpy() == pytest.approx(
            multipletests(want, method="holm")[1], abs=1e-12
        )
