"""The cross-lingual marts (version 2) end to end on the 60-item study, against values
computed independently of the warehouse (pandas + scipy straight from the seed files)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import entropy as scipy_entropy

from concord_io.project import PROJECT_ROOT

SEEDS = PROJECT_ROOT / "seeds" / "mcq"
LANGS = ("EN", "IT", "FA")


def independent_answers() -> pd.DataFrame:
    """One row per model, run, item with the three letters, read with pandas alone."""
    registry = pd.read_csv(SEEDS / "mcq_answer_registry.csv")
    frames = []
    for line in registry.itertuples():
        df = pd.read_csv(SEEDS / "answers" / line.file, encoding="utf-8-sig", dtype=str)
        out = pd.DataFrame(
            {
                "model": line.model,
                "run": line.run,
                "item_id": np.arange(1, len(df) + 1),
                "domain": df["Domain_EN"],
                "order": line.presented_option_order,
            }
        )
        for lang in LANGS:
            out[lang.lower()] = df[f"{line.prefix}_{lang}"].str.strip().str.upper()
        frames.append(out)
    return pd.concat(frames, ignore_index=True)


def classify(en: str, it: str, fa: str) -> tuple[str, str | None]:
    """The type of a complete three-language item and the language that departs."""
    if en == it == fa:
        return "full_agreement", None
    if en == it:
        return "one_diverged", "fa"
    if en == fa:
        return "one_diverged", "it"
    if it == fa:
        return "one_diverged", "en"
    return "no_majority", None


FLIP = dict(zip("ABCD", "DCBA", strict=True))


@pytest.fixture(scope="module")
def expected() -> pd.DataFrame:
    answers = independent_answers()
    classified = [classify(*r) for r in answers[["en", "it", "fa"]].itertuples(index=False)]
    answers["type"] = [t for t, _ in classified]
    answers["departing"] = [d for _, d in classified]
    # the item's own option: in a DCBA run the presented A is the original D
    for lang in ("en", "it", "fa"):
        shuffled = answers["order"] == "DCBA"
        answers[f"{lang}_option"] = answers[lang].where(~shuffled, answers[lang].map(FLIP))
    return answers.rename(columns={"run": "variant"})


def by_item_number(marts, query: str) -> pd.DataFrame:
    """The rows of ``query``, ``item_id`` as the number that ``expected`` gives it."""
    got = marts.sql(query).df()
    got["item_id"] = got["item_id"].astype(int)
    return got


def test_item_agreement_matches(marts, expected):
    got = by_item_number(
        marts,
        "select model, variant, task, item_id, n_languages, n_valid, disagreement_type, "
        "departing_languages, full_agreement from marts.fct_mcq_item_agreement_v2",
    )
    merged = expected.merge(got, on=["model", "variant", "item_id"], validate="one_to_one")
    assert len(merged) == len(expected) == 8 * 60
    assert (merged["task"] == "xcloze").all() and (merged["n_languages"] == 3).all()
    assert (merged["type"] == merged["disagreement_type"]).all()
    assert (merged["departing"].fillna("") == merged["departing_languages"].fillna("")).all()
    assert (merged["full_agreement"] == (merged["type"] == "full_agreement")).all()


def test_answers_give_the_option_and_where_it_was_shown(marts, expected):
    got = by_item_number(
        marts,
        "select model, variant, item_id, language, chosen_option, presented_position, departs "
        "from marts.fct_mcq_answers",
    )
    assert len(got) == 8 * 60 * 3
    for lang in ("en", "it", "fa"):
        cell = expected.merge(
            got[got.language == lang], on=["model", "variant", "item_id"], validate="one_to_one"
        )
        assert (cell[f"{lang}_option"] == cell["chosen_option"]).all()
        # the presented letter is the position: A is 1
        assert (cell[lang].map("ABCD".index) + 1 == cell["presented_position"]).all()
        assert (cell["departs"] == (cell["departing"] == lang)).all()


def test_summary_matches_and_partitions(marts, expected):
    got = (
        marts.sql("select * from marts.mcq_agreement_summary_v2")
        .df()
        .set_index(["model", "variant"])
    )
    pairs = (("en", "it"), ("en", "fa"), ("it", "fa"))
    for (model, variant), items in expected.groupby(["model", "variant"]):
        row = got.loc[(model, variant)]
        counts = items["type"].value_counts()
        assert row.n_items == 60 and row.n_complete == 60 and row.n_incomplete == 0
        for t in ("full_agreement", "one_diverged", "majority", "no_majority"):
            assert row[f"n_{t}"] == counts.get(t, 0)
        assert row.full_agreement_pct == pytest.approx(100 * counts.get("full_agreement", 0) / 60)
        assert row.disagreement_pct == pytest.approx(100 - row.full_agreement_pct)
        assert row.no_majority_pct == pytest.approx(100 * counts.get("no_majority", 0) / 60)
        pairwise = np.mean(
            [(items[f"{a}_option"] == items[f"{b}_option"]).mean() for a, b in pairs]
        )
        assert row.n_language_pairs == 3
        assert row.mean_pairwise_agreement_pct == pytest.approx(100 * pairwise)
        assert (
            row.mean_pairwise_agreement_ci_low
            <= row.mean_pairwise_agreement_pct
            <= row.mean_pairwise_agreement_ci_high
        )
        assert row.full_agreement_ci_low <= row.full_agreement_pct <= row.full_agreement_ci_high
        # the three rates share their resamples: disagreement mirrors agreement exactly
        assert row.disagreement_ci_low == pytest.approx(100 - row.full_agreement_ci_high)
        assert row.disagreement_ci_high == pytest.approx(100 - row.full_agreement_ci_low)


def test_summary_kappa_is_the_rater_studys_languages_as_raters_figure(marts):
    """Two implementations of one figure: the summary's Fleiss kappa, from how many items
    show each pattern of option counts, is the rater study's, from the items × languages
    codes. The intervals resample the same items from their own streams: they agree to the
    bootstrap's Monte Carlo error."""
    rows = marts.execute(
        "select s.fleiss_kappa, r.fleiss_kappa, s.fleiss_kappa_ci_low, r.fleiss_kappa_ci_low, "
        "s.fleiss_kappa_ci_high, r.fleiss_kappa_ci_high "
        "from marts.mcq_agreement_summary_v2 as s "
        "inner join marts.rater_agreement_summary as r "
        "on r.dataset_kind = 'languages_as_raters' and r.model = s.model and r.run = s.variant"
    ).fetchall()
    assert len(rows) == 8
    for kappa, rater_kappa, low, rater_low, high, rater_high in rows:
        assert kappa == pytest.approx(rater_kappa, abs=1e-12)
        assert low == pytest.approx(rater_low, abs=0.01)
        assert high == pytest.approx(rater_high, abs=0.01)
        assert low <= kappa <= high


def test_mean_pairwise_agreement_interval_is_the_delta_method_one(marts, expected):
    """With every item complete, the linearised standard error is that of the per-item mean
    of the pairs' agreement (each pair has the same n): checked for GPT-4o's base run."""
    from statistics import NormalDist

    items = expected[(expected.model == "GPT-4o") & (expected.variant == "base")]
    per_item = np.mean(
        [items[f"{a}_option"] == items[f"{b}_option"] for a, b in (("en", "it"), ("en", "fa"),
                                                                   ("it", "fa"))],
        axis=0,
    ) * 100  # fmt: skip
    se = per_item.std(ddof=1) / np.sqrt(len(per_item))
    z = NormalDist().inv_cdf(0.975)
    low, high = marts.execute(
        "select mean_pairwise_agreement_ci_low, mean_pairwise_agreement_ci_high "
        "from marts.mcq_agreement_summary_v2 where model = 'GPT-4o' and variant = 'base'"
    ).fetchone()
    assert low == pytest.approx(max(0.0, per_item.mean() - z * se))
    assert high == pytest.approx(min(100.0, per_item.mean() + z * se))


def test_published_gpt4o_figures(marts):
    # the study's GPT-4o base run: 30 of 60 agree; its notebooks reported 37 "all different"
    # (30 agreeing + 7 truly all different): here the 7 stand alone, as no majority
    row = marts.execute(
        "select n_full_agreement, n_no_majority, full_agreement_ci_low, full_agreement_ci_high "
        "from marts.mcq_agreement_summary_v2 where model = 'GPT-4o' and variant = 'base'"
    ).fetchone()
    assert row[:2] == (30, 7)
    assert row[2] == pytest.approx(36.6667, abs=1.7) and row[3] == pytest.approx(63.3333, abs=1.7)


def test_domain_counts_match(marts, expected):
    got = marts.sql("select * from marts.mcq_domain_disagreement_v2").df()
    exp = (
        expected.assign(disagree=expected["type"] != "full_agreement")
        .groupby(["model", "variant", "domain"])
        .agg(n_items=("type", "size"), n_disagree=("disagree", "sum"))
        .reset_index()
    )
    merged = exp.merge(got, on=["model", "variant", "domain"], suffixes=("_exp", ""))
    assert len(merged) == len(exp) == len(got)
    assert (merged["n_items_exp"] == merged["n_items"]).all()
    assert (merged["n_disagree_exp"] == merged["n_disagree"]).all()


def test_option_frequency_and_entropy_match(marts, expected):
    got = marts.sql("select * from marts.mcq_option_frequency_v2").df()
    entropy = marts.sql("select * from marts.mcq_choice_entropy_v2").df()
    assert len(got) == 8 * 3 * 4 and len(entropy) == 8 * 3
    for (model, variant), items in expected.groupby(["model", "variant"]):
        for lang in ("en", "it", "fa"):
            by_position = items[lang].value_counts()
            by_option = items[f"{lang}_option"].value_counts()
            cell = got[(got.model == model) & (got.variant == variant) & (got.language == lang)]
            for option in "ABCD":
                row = cell[cell.option == option]
                assert row["n_position"].item() == by_position.get(option, 0)
                assert row["n_option"].item() == by_option.get(option, 0)
            bits = entropy[
                (entropy.model == model) & (entropy.variant == variant) & (entropy.language == lang)
            ]
            assert bits["entropy_bits"].item() == pytest.approx(
                scipy_entropy(by_position.to_numpy(), base=2), abs=1e-12
            )


def test_order_effect_consistency_matches(marts, expected):
    got = marts.sql("select * from marts.mcq_order_effect_v2").df()
    assert sorted(set(got.model)) == ["GPT-4o", "LLaMA 3.1 70B"]
    assert set(got.variant) == {"shuffled"} and set(got.baseline_variant) == {"base"}
    assert len(got) == 2 * 3
    agreement = lambda d: (d["type"] == "full_agreement").mean() * 100  # noqa: E731
    for row in got.itertuples():
        model = expected[expected.model == row.model]
        base = model[model.variant == "base"].set_index("item_id")
        shuf = model[model.variant == "shuffled"].set_index("item_id")
        lang = row.language
        same = (base[f"{lang}_option"] == shuf[f"{lang}_option"]).mean() * 100
        assert row.same_option_pct == pytest.approx(same)
        assert row.full_agreement_pct_diff == pytest.approx(agreement(shuf) - agreement(base))


def test_without_gold_the_accuracy_marts_are_null_or_empty(marts):
    """The 60 cloze items have no gold: every run and language has its accuracy row with n
    0 and null figures (never 0), every run its row across languages with null shares, and
    there is nothing to compare models on."""
    accuracy = marts.execute("select * from marts.mcq_accuracy").df()
    assert len(accuracy) == 8 * 3 and set(accuracy.language) == {"en", "it", "fa"}
    counts = ["n_gold_items", "n_items", "n_correct", "n_scored_items", "n_correct_norm"]
    assert (accuracy[counts] == 0).all().all()
    figures = accuracy.drop(columns=[*counts, "run_id", "task", "language", "model",
                                     "model_revision", "variant"])  # fmt: skip
    assert len(figures.columns) == 9 and figures.isna().all().all()
    across = marts.execute("select * from marts.mcq_accuracy_across_languages").df()
    assert len(across) == 8 and (across.n_items == 0).all()
    assert across.filter(like="_pct").isna().all().all()
    assert marts.execute("select count(*) from marts.mcq_model_accuracy_comparison").fetchall() == [
        (0,)
    ]


def test_bootstrap_marts_are_reproducible(warehouse, tmp_path):
    """The same seed gives the same marts: a second build into another file is identical."""
    import duckdb

    from concord_io.project import NO_DATA_TESTS, run_dbt

    other = tmp_path / "again.duckdb"
    # tables only: the data tests of these inputs ran on the shared warehouse
    run_dbt(["build", "--select", "+mcq_bootstrap_ci.v2", *NO_DATA_TESTS], PROJECT_ROOT, other)
    query = "select * from marts.mcq_bootstrap_ci_v2 order by run_id, task, metric, language"
    with duckdb.connect(str(warehouse), read_only=True) as a, duckdb.connect(str(other)) as b:
        pd.testing.assert_frame_equal(a.sql(query).df(), b.sql(query).df())
        n = a.sql("select distinct bootstrap_resamples from marts.mcq_bootstrap_ci_v2").fetchall()
        assert n == [(10000,)]


def test_edge_cases_one_item_and_all_same_answer(project_copy):
    """A file with a single item, and a model that always answers A in every language,
    build into sensible marts (no NaN where a value exists, degenerate intervals)."""
    import duckdb

    from concord_io.project import run_dbt

    answers = project_copy / "seeds" / "mcq" / "answers"
    source = (answers / "GPT4o_Merged_Multilingual.csv").read_text(encoding="utf-8-sig")
    header, *rows = source.splitlines()
    for path in answers.glob("*.csv"):
        path.unlink()
    (answers / "one.csv").write_text(header + "\n" + rows[0] + "\n", encoding="utf-8")
    same = [",".join(r.split(",")[:-3] + ["A", "A", "A"]) for r in rows]
    (answers / "same.csv").write_text("\n".join([header, *same]) + "\n", encoding="utf-8")
    (project_copy / "seeds" / "mcq" / "mcq_answer_registry.csv").write_text(
        "file,model,prefix,run,presented_option_order\n"
        "one.csv,One,GPT4o,base,ABCD\nsame.csv,Same,GPT4o,base,ABCD\n"
    )
    database = project_copy / "concord.duckdb"
    run_dbt(
        ["build", "--select", "+path:models/marts/mcq"],
        project_copy,
        database,
    )
    with duckdb.connect(str(database), read_only=True) as con:
        summary = {
            r[0]: r[1:]
            for r in con.execute(
                "select s.model, s.n_items, s.full_agreement_pct, s.full_agreement_ci_low, "
                "s.full_agreement_ci_high, e.entropy_bits from marts.mcq_agreement_summary_v2 s "
                "join marts.mcq_choice_entropy_v2 e on e.run_id = s.run_id and e.language = 'en'"
            ).fetchall()
        }
        entropy = con.execute(
            "select entropy_bits, entropy_norm, ci_low, ci_high from marts.mcq_choice_entropy_v2 "
            "where model = 'Same'"
        ).fetchall()
    one_agrees = rows[0].split(",")[-3:]
    expected = 100.0 if len(set(one_agrees)) == 1 else 0.0
    assert summary["One"] == (1, expected, expected, expected, 0.0)
    assert summary["Same"] == (60, 100.0, 100.0, 100.0, 0.0)
    assert entropy == [(0.0, 0.0, 0.0, 0.0)] * 3
