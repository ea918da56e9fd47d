"""The v2 reference (tests/python/mcq_reference.py) on studies with a planted answer
(bench/generate_mcq.py's ``planted``), against values derived by hand. No dbt."""

from __future__ import annotations

import pandas as pd
import pytest
from bench_modules import bench_module
from mcq_reference import (
    accuracy,
    accuracy_across_languages,
    agreement_summary,
    choice_entropy,
    item_agreement,
    model_accuracy_pairs,
    option_frequency,
    task_languages,
)

generate_mcq = bench_module("generate_mcq")


def study(pattern: str, declared: list[str] | None = None) -> tuple[pd.DataFrame, list[str]]:
    """The planted study's answers as landed, and its declared languages (or ``declared``)."""
    planted = generate_mcq.planted(pattern)
    languages = planted.languages if declared is None else declared
    return generate_mcq.as_landed(planted.answers), languages


def summary_of(pattern: str, declared: list[str] | None = None) -> dict:
    (row,) = agreement_summary(*study(pattern, declared)).to_dict("records")
    return row


def test_eight_languages_one_always_diverging():
    items = item_agreement(*study("one_diverges"))
    assert len(items) == 6
    assert set(items.disagreement_type) == {"one_diverged"}
    assert set(items.departing_languages) == {"it"}
    assert items.n_majority.tolist() == [7] * 6 and items.n_languages.tolist() == [8] * 6
    assert items.majority_option.tolist() == ["B", "C", "D", "A", "B", "C"]
    assert not items.full_agreement.any()


def test_four_languages_split_two_two():
    items = item_agreement(*study("two_two"))
    assert set(items.disagreement_type) == {"no_majority"}
    assert items.majority_option.isna().all() and items.n_majority.isna().all()
    assert items.departing_languages.isna().all()


def test_two_languages_agree_or_have_no_majority():
    items = item_agreement(*study("two_languages"))
    assert items.disagreement_type.tolist() == ["full_agreement"] * 3 + ["no_majority"]
    assert items.majority_option.tolist()[:3] == ["A", "B", "C"]
    assert items.majority_option.isna().tolist() == [False, False, False, True]


def test_one_item_with_a_majority_and_two_departing():
    (item,) = item_agreement(*study("one_item")).to_dict("records")
    assert item["disagreement_type"] == "majority"
    assert (item["majority_option"], item["n_majority"]) == ("A", 3)
    assert item["departing_languages"] == "es,it"  # sorted by code
    assert item["full_agreement"] is False


#: Each planted study's summary, by hand
SUMMARIES = {
    # 28 pairs: the 21 among the seven agree on every item, the 7 with `it` on none
    "one_diverges": {
        "n_complete": 6, "n_one_diverged": 6, "full_agreement_pct": 0, "disagreement_pct": 100,
        "no_majority_pct": 0, "n_language_pairs": 28, "mean_pairwise_agreement_pct": 21 / 28 * 100,
    },
    # 2 of the 6 pairs agree on each item (which two changes by item)
    "two_two": {
        "n_no_majority": 6, "no_majority_pct": 100, "full_agreement_pct": 0,
        "n_language_pairs": 6, "mean_pairwise_agreement_pct": 2 / 6 * 100,
    },
    "two_languages": {
        "full_agreement_pct": 75, "no_majority_pct": 25, "disagreement_pct": 25,
        "mean_pairwise_agreement_pct": 75, "n_language_pairs": 1,
    },
    # of 10 pairs only the three among en, de, fr agree
    "one_item": {
        "n_items": 1, "n_majority": 1, "full_agreement_pct": 0, "mean_pairwise_agreement_pct": 30,
    },
}  # fmt: skip


@pytest.mark.parametrize("pattern", SUMMARIES)
def test_the_summary_of_a_planted_study(pattern):
    summary = summary_of(pattern)
    assert {name: summary[name] for name in SUMMARIES[pattern]} == pytest.approx(SUMMARIES[pattern])


def test_a_declared_language_no_run_answered_is_not_one_of_its_languages():
    """en, de and fa declared, only en and de answer (and agree): the run's languages are
    en and de, so every item is complete and agrees (never incomplete for want of fa)."""
    items = item_agreement(*study("missing_language"))
    assert set(items.disagreement_type) == {"full_agreement"}
    assert items.n_valid.tolist() == [2] * 6 and items.n_languages.tolist() == [2] * 6
    summary = summary_of("missing_language")
    assert (summary["n_items"], summary["n_complete"], summary["n_incomplete"]) == (6, 6, 0)
    assert summary["full_agreement_pct"] == 100
    assert summary["n_language_pairs"] == 1 and summary["mean_pairwise_agreement_pct"] == 100
    assert summary_of("missing_language", declared=[])["n_full_agreement"] == 6


def test_a_run_is_compared_in_its_own_languages_never_in_another_runs():
    """A run that lacks a language another run of its task has: its items are classified
    in the languages it answered, not left incomplete; a task's own declared languages
    (a mapping) leave out an answer in another language."""
    answers, _ = study("two_languages")
    other = answers[answers.language == "en"].assign(run_id="M--other", variant="other")
    both = pd.concat([answers, other])
    assert task_languages(both, []) == {("M--base", "xling"): ["en", "it"],
                                        ("M--other", "xling"): ["en"]}  # fmt: skip
    summary = agreement_summary(both, []).set_index("run_id")
    assert summary.loc["M--other", "n_incomplete"] == 0
    assert summary.loc["M--other", "n_languages"] == 1
    assert summary.loc["M--base", "n_full_agreement"] == 3
    only_en = agreement_summary(both, {"xling": ["en"]}).set_index("run_id")
    assert set(only_en.n_languages) == {1} and set(only_en.n_incomplete) == {0}


def test_an_answer_in_an_undeclared_language_is_not_compared():
    answers, languages = study("two_languages")
    extra = answers[answers.language == "en"].assign(language="de", chosen_option="D")
    with_extra = pd.concat([answers, extra])
    assert summary_of("two_languages") == agreement_summary(with_extra, languages).iloc[0].to_dict()


def test_an_invalid_answer_makes_its_item_incomplete_and_is_not_a_pair():
    answers, languages = study("two_languages")
    invalid = (answers.item_id == "4") & (answers.language == "it")
    answers.loc[invalid, ["chosen_option", "presented_position"]] = [None, pd.NA]
    summary = agreement_summary(answers, languages).iloc[0]
    assert (summary.n_complete, summary.n_incomplete, summary.full_agreement_pct) == (3, 1, 100)
    assert summary.mean_pairwise_agreement_pct == 100  # item 4 is no longer shared


def test_option_frequency_counts_keys_and_positions_and_entropy_is_in_bits():
    answers, languages = study("two_languages")
    frequency = option_frequency(answers, languages).set_index(["language", "option"])
    en = frequency.loc["en"]  # A, B, C, A
    assert en.n_option.tolist() == [2, 1, 1, 0] and en.n_position.tolist() == [2, 1, 1, 0]
    assert en.pct_option.tolist() == [50, 25, 25, 0] and set(en.n_valid) == {4}
    assert en.option_position.tolist() == [1, 2, 3, 4]
    entropy = choice_entropy(answers, languages).set_index("language")
    assert entropy.loc["en", "entropy_bits"] == pytest.approx(1.5)  # 1/2 + 2 x 1/4 x 2
    assert entropy.loc["en", "entropy_norm"] == pytest.approx(0.75)
    assert entropy.loc["it", "entropy_bits"] == pytest.approx(2)  # A, B, C, D: uniform
    assert entropy.loc["it", "entropy_norm"] == pytest.approx(1)


def test_a_shuffled_run_counts_positions_apart_from_keys():
    """Presented DCBA, the item's A is shown at position 4: the key counts under A, the
    position under option_position 4 (the row of D)."""
    answers, languages = study("two_languages")
    answers["presented_position"] = 5 - answers["presented_position"]
    en = option_frequency(answers, languages).set_index(["language", "option"]).loc["en"]
    assert en.n_option.tolist() == [2, 1, 1, 0] and en.n_position.tolist() == [0, 1, 1, 2]
    entropy = choice_entropy(answers, languages).set_index("language")
    assert entropy.loc["en", "entropy_bits"] == pytest.approx(1.5)


def test_a_language_without_a_valid_answer_has_no_percentages_or_entropy():
    answers, languages = study("one_item")
    answers.loc[answers.language == "es", ["chosen_option", "presented_position"]] = [None, pd.NA]
    frequency = option_frequency(answers, languages).query("language == 'es'")
    assert set(frequency.n_valid) == {0} and frequency.pct_option.isna().all()
    (es,) = choice_entropy(answers, languages).query("language == 'es'").to_dict("records")
    assert pd.isna(es["entropy_bits"]) and pd.isna(es["entropy_norm"])


# --------------------------------------------------------------------------- against gold


def test_accuracy_against_gold_by_hand():
    """generate_mcq.planted_gold: an invalid answer is wrong, an unanswered item is left out
    of n (N in fr: 4 of the 5 gold items), an item without gold is in no n, and a language
    may have its own gold (item 5 in fr)."""
    answers = generate_mcq.as_landed(generate_mcq.planted_gold())
    got = accuracy(answers, []).set_index(["model", "language"])
    want = {
        ("M", "en"): (5, 3), ("M", "de"): (5, 2), ("M", "fr"): (5, 1),
        ("N", "en"): (5, 4), ("N", "de"): (5, 3), ("N", "fr"): (4, 4),
    }  # fmt: skip
    for key, (n, n_correct) in want.items():
        row = got.loc[key]
        assert (row.n_gold_items, row.n_items, row.n_correct) == (5, n, n_correct), key
        assert row.accuracy_pct == pytest.approx(100 * n_correct / n)
        assert row.coverage_pct == pytest.approx(100 * n / 5)
    # sqrt(p (1 - p) / (n - 1)): 0.6 of 5, and no spread when all are right
    assert got.loc[("M", "en"), "accuracy_std_error"] == pytest.approx(100 * (0.24 / 4) ** 0.5)
    assert got.loc[("N", "fr"), "accuracy_std_error"] == 0


def test_accuracy_across_languages_and_model_pairs_by_hand():
    answers = generate_mcq.as_landed(generate_mcq.planted_gold())
    across = accuracy_across_languages(answers, []).set_index("model")
    # M: items 1-5; 1 right everywhere, 2 (C, C, C) and 4 (A, B, C) right nowhere, 2 the
    # same wrong option; N: items 1, 2, 4, 5 (3 is not answered in fr)
    assert across.loc["M", ["n_items", "n_all_correct", "n_none_correct",
                            "n_consistently_wrong"]].tolist() == [5, 1, 2, 1]  # fmt: skip
    assert across.loc["N", ["n_items", "n_all_correct", "n_none_correct",
                            "n_consistently_wrong"]].tolist() == [4, 2, 0, 0]  # fmt: skip
    assert across.loc["M", "none_correct_pct"] == 40 and set(across.n_languages) == {3}
    pairs = model_accuracy_pairs(answers, []).set_index("language")
    assert pairs.loc["en", ["n_items", "n_only_a", "n_only_b"]].tolist() == [5, 1, 2]
    assert pairs.loc["de", ["n_items", "n_only_a", "n_only_b"]].tolist() == [5, 2, 3]
    assert pairs.loc["fr", ["n_items", "n_only_a", "n_only_b"]].tolist() == [4, 0, 3]
    assert pairs.loc["fr", ["accuracy_pct_a", "accuracy_pct_b"]].tolist() == [25, 100]
    assert set(pairs.run_id_a) == {"M--base"} and set(pairs.run_id_b) == {"N--base"}
