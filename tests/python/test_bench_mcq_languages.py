"""The floor of bench/bench_mcq_languages.py computes the v2 figures: held to the pandas
reference (tests/python/mcq_reference.py) on a small generated study and on every planted
one; and the harness's small run writes its results. No dbt."""

from __future__ import annotations

import itertools
import json

import duckdb
import pandas as pd
import pytest
from bench_modules import bench_module
from mcq_reference import agreement_summary, item_agreement, option_frequency
from sklearn.metrics import cohen_kappa_score

bench = bench_module("bench_mcq_languages")
generate_mcq = bench_module("generate_mcq")

RUN = ["model", "run", "task"]


def floor(files, languages) -> dict[str, pd.DataFrame]:
    with duckdb.connect() as con:
        bench.run_floor(con, files, languages)
        return {
            table: con.sql(f"select * from floor_{table}").df()
            for table in ("items", "summary", "options")
        }


def reference(answers: pd.DataFrame, languages: list[str]) -> dict[str, pd.DataFrame]:
    """The reference's tables, keyed like the floor's (model, run for run_id)."""
    landed = generate_mcq.as_landed(answers)

    def keyed(frame: pd.DataFrame) -> pd.DataFrame:
        return frame.rename(columns={"variant": "run"}).drop(columns="run_id")

    return {
        "items": keyed(item_agreement(landed, languages)),
        "summary": keyed(agreement_summary(landed, languages)),
        "options": keyed(option_frequency(landed, languages)),
    }


def assert_same(got: pd.DataFrame, expected: pd.DataFrame, keys: list[str], columns: list[str]):
    """The same rows (by ``keys``) and values (numbers to 1e-9; None and NaN alike)."""

    def ordered(frame: pd.DataFrame) -> pd.DataFrame:
        frame = frame[keys + columns].sort_values(keys).reset_index(drop=True)
        for column in columns:
            if frame[column].dtype == object and column.startswith(("n_", "mean_")):
                frame[column] = pd.to_numeric(frame[column])
            if column.endswith("_pct") or column.startswith(("n_", "mean_")):
                frame[column] = frame[column].astype(float)
        return frame

    pd.testing.assert_frame_equal(
        ordered(got), ordered(expected), check_dtype=False, rtol=0, atol=1e-9
    )


SUMMARY = [
    "n_languages",
    "n_items",
    "n_complete",
    "n_full_agreement",
    "n_one_diverged",
    "n_majority",
    "n_no_majority",
    "n_incomplete",
    "full_agreement_pct",
    "no_majority_pct",
    "disagreement_pct",
    "mean_pairwise_agreement_pct",
    "n_language_pairs",
]


def assert_floor_is_the_reference(files, answers: pd.DataFrame, languages: list[str]) -> None:
    got, expected = floor(files, languages), reference(answers, languages)
    items = [*RUN, "item_id"]
    assert_same(
        got["items"], expected["items"], items, ["n_languages", "n_valid", "disagreement_type"]
    )
    assert_same(got["summary"], expected["summary"], RUN, SUMMARY)
    options = [*RUN, "language", "option"]
    assert_same(
        got["options"], expected["options"], options, ["option_position", "n_option", "n_valid"]
    )


def test_the_floor_computes_the_references_figures_on_a_generated_study(tmp_path):
    study = generate_mcq.generate_languages(tmp_path, n_languages=6, n_items=130, n_models=3)
    answers = pd.concat([pd.read_parquet(f) for f in study.files], ignore_index=True)
    assert len(answers) == study.answer_rows == 6 * 130 * 3 * 2
    assert study.languages == ["en", "de", "fr", "es", "it", "pt"]
    # more than one 64-item chunk, and every type but incomplete is met
    types = floor(study.files, study.languages)["items"].disagreement_type
    assert {"full_agreement", "one_diverged", "majority", "no_majority"} <= set(types)
    assert_floor_is_the_reference(study.files, answers, study.languages)
    # the same study with a language missing from one run and an invalid answer
    lacking = answers.drop(answers.query("model == 'Model 01' and language == 'pt'").index)
    lacking.loc[lacking.index[5], "answer"] = "E"
    path = tmp_path / "lacking.parquet"
    lacking.to_parquet(path)
    assert_floor_is_the_reference([path], lacking, study.languages)
    assert_floor_is_the_reference([path], lacking, [])


@pytest.mark.parametrize("pattern", generate_mcq.PLANTED)
def test_the_floor_computes_the_references_figures_on_the_planted_studies(tmp_path, pattern):
    planted = generate_mcq.planted(pattern)
    path = tmp_path / "planted.parquet"
    planted.answers.to_parquet(path)
    assert_floor_is_the_reference([path], planted.answers, planted.languages)
    assert_floor_is_the_reference([path], planted.answers, [])


def test_the_pairs_floor_is_each_pairs_agreement_and_scikit_learns_kappa(tmp_path):
    """The hand-written pair tables the pair consistency is timed against: on a generated
    study with an invalid answer and a language missing from some items, each run and pair of
    languages on the items both answered validly."""
    study = generate_mcq.generate_languages(tmp_path, n_languages=3, n_items=70, n_models=1)
    answers = pd.concat([pd.read_parquet(f) for f in study.files], ignore_index=True)
    answers.loc[answers.index[7], "answer"] = "E"
    answers = answers.drop(answers.query("language == 'fr' and item_id < '2'").index)
    path = tmp_path / "gappy.parquet"
    answers.to_parquet(path)
    with duckdb.connect() as con:
        bench.run_floor(con, [path], study.languages)
        con.execute(bench.PAIRS_FLOOR)
        got = (
            con.sql("select * from floor_pairs").df().set_index([*RUN, "language_1", "language_2"])
        )
    valid = answers[answers.answer.isin(list("ABCD"))]
    n_pairs = 0
    for (model, run, task), group in valid.groupby(RUN):
        wide = group.pivot(index="item_id", columns="language", values="answer")
        for first, second in itertools.combinations(sorted(wide.columns), 2):
            both = wide[[first, second]].dropna()
            row = got.loc[(model, run, task, first, second)]
            assert row.n_items == len(both)
            assert row.agreement_pct == pytest.approx(100 * (both[first] == both[second]).mean())
            assert row.cohen_kappa == pytest.approx(cohen_kappa_score(both[first], both[second]))
            n_pairs += 1
    assert n_pairs == len(got) == 1 * 2 * 3  # a model, two variants, three pairs


def test_generated_answers_are_reproducible_and_the_models_differ(tmp_path):
    first = generate_mcq.generate_languages(tmp_path / "a", n_languages=3, n_items=50, n_models=2)
    second = generate_mcq.generate_languages(tmp_path / "b", n_languages=3, n_items=50, n_models=2)

    def read(study):
        frame = pd.concat([pd.read_parquet(f) for f in study.files])
        return frame.sort_values(["model", "run", "item_id", "language"]).reset_index(drop=True)

    pd.testing.assert_frame_equal(read(first), read(second))
    # the later models repeat the pivot's letter more often (0.3 -> 0.9)
    frame = read(first)
    pivot = frame[frame.language == "en"].set_index(["model", "run", "item_id"]).answer
    other = frame[frame.language != "en"].join(
        pivot.rename("pivot_answer"), on=["model", "run", "item_id"]
    )
    repeated = (other.answer == other.pivot_answer).groupby(other.model).mean()
    assert repeated["Model 00"] < repeated["Model 01"]
    assert json.loads(first.dbt_vars()) == {"mcq_languages": ["en", "de", "fr"]}
    assert len(frame) == first.answer_rows


@pytest.mark.slow  # a copy of the project and a fresh interpreter
def test_the_harness_small_run_writes_its_results(tmp_path):
    report = bench.main(["--small", "--floor-only", "--out", str(tmp_path)])
    written = json.loads((tmp_path / "mcq_languages_quick.json").read_text())
    assert written["result"]["answer_rows"] == report["result"]["answer_rows"] == 8 * 500 * 3 * 2
    assert written["result"]["floor"]["items"] == 500 * 3 * 2
    assert (tmp_path / "mcq_languages_quick.md").read_text().startswith("| languages x items")
