"""The cross-lingual marts at any number of languages, end to end: planted studies (one task
each) built by dbt with `mcq_languages: []` and held, mart by mart, to the independent pandas
reference (tests/python/mcq_reference.py): eight languages with one always diverging, four
split 2–2, two languages, one item, and a study with an invalid answer, a language missing
from some items and a variant of its own; and two models against gold (accuracy, accuracy
across languages, the models compared on accuracy, and two golds for one item failing the
build). The declared language with no answer at all is a unit test of
int_mcq_items_classified and a warning (tests/dbt/mcq/)."""

from __future__ import annotations

import shutil
from statistics import NormalDist

import duckdb
import pandas as pd
import pytest
from bench_modules import bench_module
from mcq_reference import (
    accuracy,
    accuracy_across_languages,
    accuracy_pooled,
    agreement_summary,
    choice_entropy,
    item_agreement,
    model_accuracy_pairs,
    model_agreement_pairs,
    option_frequency,
)
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from concord_io.project import copy_project, run_dbt

pytestmark = pytest.mark.warehouse
generate_mcq = bench_module("generate_mcq")
RUN = ["model", "variant", "task"]


def planted_answers() -> pd.DataFrame:
    frames = []
    for pattern in ("one_diverges", "two_two", "two_languages", "one_item"):
        frames.append(generate_mcq.planted(pattern).answers.assign(task=pattern))
    # another model and variant of the eight-language study, less tidy: an invalid answer
    # (item 3, fr) and Portuguese missing on items 1 and 2
    other = generate_mcq.planted("one_diverges").answers.assign(model="N", run="alt")
    other.loc[(other.item_id == "3") & (other.language == "fr"), "answer"] = "E"
    other = other[~((other.language == "pt") & other.item_id.isin(["1", "2"]))]
    frames.append(other.assign(task="untidy"))
    # two models against gold (the long file's gold column), task graded
    frames.append(generate_mcq.planted_gold())
    frames.append(mixed_languages())
    return pd.concat(frames, ignore_index=True)


#: Task declared's own languages (seeds/mcq/mcq_task_languages.csv): its es answers are not
#: compared. Every other planted task declares none.
DECLARED = {"declared": ["de", "en"]}


def mixed_languages() -> pd.DataFrame:
    """Task mixed: model M answered en, de and fr, model N en and de only (N never saw fr):
    each run is compared in its own languages (N's items are complete without fr), and the
    two with each other in en and de. Task declared: en and de declared, M answered es
    too."""
    rows = []
    # item: M's en, de, fr; N's en, de
    for item, (m_en, m_de, m_fr, n_en, n_de) in enumerate(
        ["AAAAA", "BBCBD", "CDCCC", "AABBB", "DDDDA"], start=1
    ):
        for model, answered in (("M", {"en": m_en, "de": m_de, "fr": m_fr}),
                                ("N", {"en": n_en, "de": n_de})):  # fmt: skip
            for language, answer in answered.items():
                rows.append(("mixed", model, str(item), language, answer))
    for item, (en, de, es) in enumerate(["AAB", "BCB"], start=1):
        for language, answer in (("en", en), ("de", de), ("es", es)):
            rows.append(("declared", "M", str(item), language, answer))
    return pd.DataFrame(rows, columns=["task", "model", "item_id", "language", "answer"]).assign(
        run="base"
    )


@pytest.fixture(scope="module")
def built_project(tmp_path_factory):
    """The project copy with the planted studies, built."""
    project = copy_project(tmp_path_factory.mktemp("any_languages") / "project")
    sources = generate_mcq._replace_answer_registries(
        project / "seeds" / "mcq", "planted.parquet,long,,,,,,,\n"
    )
    planted_answers().to_parquet(sources / "planted.parquet")
    (project / "seeds" / "mcq" / "mcq_task_languages.csv").write_text(
        "task,language\n"
        + "".join(f"{task},{lang}\n" for task, langs in DECLARED.items() for lang in langs)
    )
    database = project / "concord.duckdb"
    run_dbt(
        [
            "build",
            "--select",
            "+path:models/marts/mcq",
            "+int_mcq_accuracy_pooled",
            "+int_mcq_answers_quarantined",
            "--vars",
            "{mcq_languages: [], bootstrap_resamples: 200}",
        ],
        project,
        database,
    )
    return project


@pytest.fixture(scope="module")
def built(built_project):
    with duckdb.connect(str(built_project / "concord.duckdb"), read_only=True) as con:
        marts = {
            name: con.sql(f"select * from marts.{name}").df()
            for name in (
                "fct_mcq_item_agreement_v2",
                "mcq_agreement_summary_v2",
                "mcq_option_frequency_v2",
                "mcq_choice_entropy_v2",
                "mcq_language_departures",
                "mcq_accuracy",
                "mcq_accuracy_across_languages",
                "mcq_model_accuracy_comparison",
                "mcq_model_comparison",
            )
        }
        marts |= {
            name: con.sql(f"select * from intermediate.{name}").df()
            for name in ("int_mcq_accuracy_pooled", "int_mcq_answers_quarantined")
        }
    return generate_mcq.as_landed(planted_answers()), marts


def same(got: pd.DataFrame, want: pd.DataFrame, keys: list[str], columns: list[str]) -> None:
    def ordered(frame: pd.DataFrame) -> pd.DataFrame:
        frame = frame[keys + columns].sort_values(keys).reset_index(drop=True)
        frame = frame.astype(object).where(frame.notna(), None)  # <NA>, NaN and None alike
        return frame.astype(
            {
                c: float
                for c in columns
                if frame[c].dtype.kind in "iufO"
                and c.startswith(("n_", "mean_", "entropy"))
                or c.endswith(("_pct", "_std_error"))
            }
        )

    pd.testing.assert_frame_equal(
        ordered(got), ordered(want), check_dtype=False, rtol=0, atol=1e-9
    )  # fmt: skip


def test_items_are_classified_as_the_definitions_say(built):
    answers, marts = built
    want = item_agreement(answers, DECLARED)
    columns = ["n_languages", "n_valid", "majority_option", "n_majority", "full_agreement",
               "disagreement_type", "departing_languages"]  # fmt: skip
    got = marts["fct_mcq_item_agreement_v2"]
    same(got, want.astype({"n_majority": "Int64"}), [*RUN, "item_id"], columns)
    # every type is met, and the planted ones where they were planted
    by_task = got.groupby("task")["disagreement_type"].agg(set)
    assert by_task["one_diverges"] == {"one_diverged"}
    assert by_task["two_two"] == {"no_majority"}
    assert by_task["one_item"] == {"majority"}
    assert by_task["two_languages"] == {"full_agreement", "no_majority"}
    assert by_task["untidy"] == {"incomplete", "one_diverged"}
    assert set(got.query("task == 'one_diverges'").departing_languages) == {"it"}


def test_the_summary_headlines_are_the_definitions(built):
    answers, marts = built
    want = agreement_summary(answers, DECLARED)
    columns = ["n_languages", "n_items", "n_complete", "n_full_agreement", "n_one_diverged",
               "n_majority", "n_no_majority", "n_incomplete", "full_agreement_pct",
               "no_majority_pct", "disagreement_pct", "mean_pairwise_agreement_pct",
               "n_language_pairs"]  # fmt: skip
    got = marts["mcq_agreement_summary_v2"]
    same(got, want, RUN, columns)
    eight = got.set_index("task").loc["one_diverges"]
    assert eight.mean_pairwise_agreement_pct == pytest.approx(100 * 21 / 28)
    assert eight.full_agreement_pct == 0 and eight.n_language_pairs == 28
    # Fleiss' kappa with languages as raters: the rater study's figure, here for every task
    assert got.fleiss_kappa.notna().all()
    four = got.set_index("task").loc["two_two"]
    assert four.mean_pairwise_agreement_pct == pytest.approx(100 * 2 / 6)


def test_options_and_entropy_follow_any_language_set(built):
    answers, marts = built
    keys = [*RUN, "language", "option"]
    same(
        marts["mcq_option_frequency_v2"],
        option_frequency(answers, DECLARED),
        keys,
        ["option_position", "n_option", "n_position", "n_valid", "pct_option", "pct_position"],
    )
    same(
        marts["mcq_choice_entropy_v2"],
        choice_entropy(answers, DECLARED),
        [*RUN, "language"],
        ["entropy_bits", "entropy_norm"],
    )


def test_each_language_departs_as_planted(built):
    _, marts = built
    # model M's base run (task graded has a second model)
    departures = (
        marts["mcq_language_departures"].query("model == 'M'").set_index(["task", "language"])
    )
    assert departures.loc[("one_diverges", "it"), "odd_one_out_pct"] == 100
    assert departures.loc[("one_diverges", "en"), "departs_pct"] == 0
    assert departures.loc[("one_diverges", "it"), "pivot_agreement_pct"] == 0
    assert departures.loc[("one_diverges", "de"), "pivot_agreement_pct"] == 100
    assert departures.loc[("two_two", "en"), "n_no_majority"] == 6


def delta_method_se(answers: pd.DataFrame) -> float:
    """The mean pairwise agreement's standard error, transcribed from docs/formulas.md:
    u_i = (1/P) Σ_{p ∋ i} (agree_ip − a_p/m_p) / m_p, SE = 100 √(M/(M − 1) Σ u_i²)."""
    valid = answers.dropna(subset=["chosen_option"])
    wide = valid.pivot(index="item_id", columns="language", values="chosen_option")
    pairs = [(a, b) for i, a in enumerate(wide.columns) for b in wide.columns[i + 1 :]]
    influence = pd.Series(0.0, index=wide.index)
    for a, b in pairs:
        both = wide[[a, b]].dropna()
        agree = (both[a] == both[b]).astype(float)
        influence.loc[both.index] += (agree - agree.mean()) / len(both) / len(pairs)
    entering = influence.index[wide.notna().sum(axis=1) >= 2]
    m = len(entering)
    return 100 * (m / (m - 1) * (influence.loc[entering] ** 2).sum()) ** 0.5


@pytest.mark.parametrize("task", ["one_diverges", "untidy", "two_two"])
def test_the_mean_pairwise_interval_is_the_delta_method_on_complete_and_gappy_runs(built, task):
    """Complete runs take the one-pass form (A_i from option counts), gappy ones pair their
    languages item by item: both are the transcribed formula."""
    from statistics import NormalDist

    answers, marts = built
    row = marts["mcq_agreement_summary_v2"].set_index("task").loc[task]
    se = delta_method_se(answers[answers.task == task])
    half = NormalDist().inv_cdf(0.975) * se
    assert row.mean_pairwise_agreement_ci_low == pytest.approx(
        max(0.0, row.mean_pairwise_agreement_pct - half), abs=1e-9
    )
    assert row.mean_pairwise_agreement_ci_high == pytest.approx(
        min(100.0, row.mean_pairwise_agreement_pct + half), abs=1e-9
    )


ACCURACY = ["n_gold_items", "n_items", "n_correct", "accuracy_pct", "accuracy_std_error",
            "coverage_pct"]  # fmt: skip
CALIBRATION = ["brier_score", "expected_calibration_error", "brier_score_norm",
               "expected_calibration_error_norm"]  # fmt: skip


def test_accuracy_is_the_harness_formula_on_the_items_with_gold(built):
    """Every run and language of every task has its row: against gold where the task has
    one (task graded), with n 0 and null figures where it has none; letters only, so no
    acc_norm and no calibration."""
    answers, marts = built
    got = marts["mcq_accuracy"]
    same(got, accuracy(answers, DECLARED), [*RUN, "language"], ACCURACY)
    graded = got.query("task == 'graded'")
    assert len(graded) == 6 and graded.accuracy_pct.notna().all()
    others = got.query("task != 'graded'")
    assert (others.n_gold_items == 0).all() and others.accuracy_pct.isna().all()
    assert (got.n_scored_items == 0).all() and got.accuracy_norm_pct.isna().all()
    assert got[CALIBRATION].isna().all().all()


def test_accuracy_across_languages_is_the_definition(built):
    answers, marts = built
    columns = ["n_languages", "n_items", "n_all_correct", "n_none_correct",
               "n_consistently_wrong", "all_correct_pct", "none_correct_pct",
               "consistently_wrong_pct"]  # fmt: skip
    got = marts["mcq_accuracy_across_languages"]
    same(got, accuracy_across_languages(answers, DECLARED), RUN, columns)
    assert got.query("task != 'graded'").all_correct_pct.isna().all()


def test_accuracy_pooled_over_languages_has_the_item_as_the_unit_of_its_error(built):
    """The scorecard's accuracy: every graded answer of every language, its interval from
    the item-level sums (the planted task graded: two models, some answers wrong or
    invalid)."""
    answers, marts = built
    got = marts["int_mcq_accuracy_pooled"].merge(
        marts["mcq_accuracy"][["run_id", *RUN]].drop_duplicates(), on=["run_id", "task"]
    )
    want = accuracy_pooled(answers, DECLARED, NormalDist().inv_cdf(0.975))
    assert set(got.task) == {"graded"} and len(got) == 2
    same(got, want, RUN,
         ["n_items", "n_graded", "accuracy_pct", "std_error", "ci_low", "ci_high"])  # fmt: skip


def test_models_are_compared_on_accuracy_per_language(built):
    """Each pair of runs and language: the reference's counts, exact McNemar as
    statsmodels computes it, Holm across the task and variant's pairs x languages as
    multipletests, and an interval around the difference."""
    answers, marts = built
    model_of = dict(zip(answers.run_id, answers.model, strict=False))
    want = model_accuracy_pairs(answers, DECLARED).assign(
        model_a=lambda f: f.run_id_a.map(model_of), model_b=lambda f: f.run_id_b.map(model_of)
    )
    got = marts["mcq_model_accuracy_comparison"]
    keys = ["task", "variant", "model_a", "model_b", "language"]
    columns = ["n_items", "accuracy_pct_a", "accuracy_pct_b", "n_only_a", "n_only_b"]
    same(got, want, keys, columns)
    assert set(got.task) == {"graded"} and len(got) == 3
    for row in got.itertuples():
        table = [[0, row.n_only_a], [row.n_only_b, 0]]
        p = mcnemar(table, exact=True).pvalue if row.n_only_a + row.n_only_b else 1.0
        assert row.p_value == pytest.approx(p, abs=1e-12)
        assert row.difference_pp == pytest.approx(row.accuracy_pct_a - row.accuracy_pct_b)
        assert row.ci_low <= row.difference_pp <= row.ci_high
    adjusted = multipletests(got.p_value, method="holm")[1]
    assert got.p_value_holm.to_numpy() == pytest.approx(adjusted, abs=1e-12)


def test_two_sources_that_give_one_item_different_golds_fail_the_build_naming_both(
    built_project, tmp_path
):
    """A third run gives item 1 of task graded another gold in English: int_mcq_golds_gathered keeps
    none for it, and its one test fails, naming the item and both golds with a source."""
    project = tmp_path / "project"
    shutil.copytree(built_project, project)
    sources = project / "seeds" / "mcq" / "answer_sources"
    (sources / "conflict.csv").write_text(
        "model,run,task,item_id,language,answer,gold\nX,base,graded,1,en,A,D\n"
    )
    registry = project / "seeds" / "mcq" / "mcq_answer_sources.csv"
    registry.write_text(registry.read_text() + "conflict.csv,long,,,,,,,\n")
    database = project / "concord.duckdb"
    selection = ["stg_mcq__runs", "stg_mcq__answers", "stg_mcq__items", "int_mcq_golds_gathered"]
    result = run_dbt(
        # the module's vars (its parse state: parsed once)
        [
            "build",
            "--select",
            *selection,
            "--vars",
            "{mcq_languages: [], bootstrap_resamples: 200}",
        ],
        project,
        database,
        check=False,
    )
    assert result.returncode == 1 and "assert_mcq_gold_sources_agree" in result.stdout
    with duckdb.connect(str(database), read_only=True) as con:
        (problem,) = con.execute(
            "select problem from dq_failures.assert_mcq_gold_sources_agree"
        ).fetchall()
        gold = con.execute(
            "select gold_option, n_golds from intermediate.int_mcq_golds_gathered "
            "where task = 'graded' and item_id = '1' and language = 'en'"
        ).fetchall()
    assert problem[0].startswith("task graded, item 1 (en): the sources give different golds: ")
    assert "A (run m--base--" in problem[0] and "D (run x--base--" in problem[0]
    assert gold == [(None, 2)]


def test_each_run_is_compared_in_its_own_languages_and_two_runs_in_those_both_have(built):
    """Task mixed: N never answered fr, so its items are complete in en and de (never
    incomplete for want of a language only M answered), and M and N are compared in en and
    de; the reference holds every pair of every task."""
    answers, marts = built
    items = marts["fct_mcq_item_agreement_v2"].query("task == 'mixed'")
    assert set(items.query("model == 'N'").n_languages) == {2}
    assert set(items.query("model == 'M'").n_languages) == {3}
    assert "incomplete" not in set(items.disagreement_type)
    model_of = dict(zip(answers.run_id, answers.model, strict=False))
    want = model_agreement_pairs(answers, DECLARED).assign(
        model_a=lambda f: f.run_id_a.map(model_of), model_b=lambda f: f.run_id_b.map(model_of)
    )
    got = marts["mcq_model_comparison"]
    columns = ["n_languages", "n_items", "full_agreement_pct_a", "full_agreement_pct_b",
               "n_only_a", "n_only_b"]  # fmt: skip
    same(got, want, ["task", "variant", "model_a", "model_b"], columns)
    mixed = got.set_index("task").loc["mixed"]
    # in en and de: M alike on items 1, 2, 4, 5 (its item 2 differs in fr only), N on 1, 3, 4
    assert (mixed.n_languages, mixed.n_items) == (2, 5)
    assert (mixed.full_agreement_pct_a, mixed.full_agreement_pct_b) == (80.0, 60.0)


def test_an_answer_in_a_language_its_task_does_not_declare_is_quarantined(built):
    """Task declared compares de and en (its lines in mcq_task_languages.csv): M's two es
    answers are quarantined with the task's languages and what to do, and counted nowhere."""
    _, marts = built
    aside = marts["int_mcq_answers_quarantined"]
    aside = aside[aside.reason.str.contains("task declared compares de, en")]
    assert len(aside) == 2 and set(aside.value) == {"B"}
    assert set(aside.record_key.str.rsplit("|", n=1).str[1]) == {"es"}
    assert "mcq_task_languages.csv" in aside.reason.iloc[0]
    summary = marts["mcq_agreement_summary_v2"].set_index("task").loc["declared"]
    assert (summary.n_languages, summary.n_full_agreement, summary.n_no_majority) == (2, 1, 1)


def test_concord_add_reads_each_tasks_languages_as_the_build_declares_them(built_project):
    """`concord add lmeval` says which answers the build will quarantine from its own reading
    of the task languages: it is int_mcq_task_languages_declared's, task by task (the lines
    of mcq_task_languages.csv, else the item files of the default task)."""
    from concord_io.cli.add import TaskLanguages
    from concord_io.landing.study import load_study

    with duckdb.connect(str(built_project / "concord.duckdb"), read_only=True) as con:
        rows = con.sql(
            "select task, language, declared_in from intermediate.int_mcq_task_languages_declared"
        ).fetchall()
    built: dict[str, list[str]] = {}
    for task, language, _ in rows:
        built.setdefault(task, []).append(language)
    assert set(built) == {"declared", "xcloze"}  # the shipped item files: task xcloze
    declared = TaskLanguages.read(built_project, load_study(built_project))
    for task, languages in built.items():
        assert declared.of(task)[0] == sorted(languages), task
    assert declared.of("mixed") == ([], "its item files")  # declares none


def test_following_the_quarantines_hint_compares_the_language(built_project, tmp_path):
    """The quarantine's reason says what to do: list the task's languages in
    seeds/mcq/mcq_task_languages.csv (what `concord add lmeval --languages` writes, as its
    own hint says). Done, the next build passes, compares es in task declared, and
    quarantines nothing for it."""
    project = tmp_path / "project"
    shutil.copytree(built_project, project)
    seed = project / "seeds" / "mcq" / "mcq_task_languages.csv"
    seed.write_text(seed.read_text() + "declared,es\n")
    database = project / "concord.duckdb"
    selection = ["+mcq_agreement_summary_v2", "+int_mcq_answers_quarantined"]
    result = run_dbt(["build", "--select", *selection, "--vars", "{bootstrap_resamples: 200}"],
                     project, database, check=False)  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:]
    with duckdb.connect(str(database), read_only=True) as con:
        (n_languages, n_full, n_majority) = con.execute(
            "select n_languages, n_full_agreement, n_one_diverged "
            "from marts.mcq_agreement_summary_v2 where task = 'declared'"
        ).fetchone()
        aside = con.execute(
            "select count(*) from intermediate.int_mcq_answers_quarantined "
            "where reason like '%task declared compares%'"
        ).fetchone()[0]
    # item 1: A, A, B (es departs); item 2: B, C, B (de departs)
    assert (n_languages, n_full, n_majority, aside) == (3, 0, 2, 0)


def test_a_tasks_language_in_capitals_declares_what_the_tag_declares(built_project, tmp_path):
    """`DE` and `EN` in mcq_task_languages.csv are the tags de and en: the landing makes a
    language column canonical, as it does the registries'. They were taken as written, so
    every English and German answer of the task was quarantined and every headline moved,
    with only the quarantine count to show for it. Every mart reads the task languages
    through int_mcq_task_languages_declared: the same rows there are the same marts."""
    project = tmp_path / "project"
    shutil.copytree(built_project, project)
    database = project / "concord.duckdb"
    declared = "select * from intermediate.int_mcq_task_languages_declared order by all"
    with duckdb.connect(str(database), read_only=True) as con:
        as_built = con.execute(declared).fetchall()
    assert ("declared", "en", "mcq_task_languages.csv") in as_built
    seed = project / "seeds" / "mcq" / "mcq_task_languages.csv"
    seed.write_text("task,language\ndeclared,DE\ndeclared,EN\n")
    selection = ["stg_mcq__task_languages", "int_mcq_task_languages_declared"]
    run_dbt(["build", "--select", *selection], project, database)
    with duckdb.connect(str(database), read_only=True) as con:
        staged = con.execute(
            "select task, language, source_row from staging.stg_mcq__task_languages order by all"
        ).fetchall()
        assert staged == [("declared", "de", 1), ("declared", "en", 2)]
        assert con.execute(declared).fetchall() == as_built
