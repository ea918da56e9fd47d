"""The cross-lingual marts end to end, against values computed independently of the
warehouse (pandas + scipy straight from the seed files)."""

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


def classify(en: str, it: str, fa: str) -> str:
    if en == it == fa:
        return "all_same"
    if en == it:
        return "fa_diverged"
    if en == fa:
        return "it_diverged"
    if it == fa:
        return "en_diverged"
    return "all_different"


@pytest.fixture(scope="module")
def expected() -> pd.DataFrame:
    answers = independent_answers()
    answers["type"] = [classify(*r) for r in answers[["en", "it", "fa"]].itertuples(index=False)]
    return answers


def test_item_agreement_matches(marts, expected):
    got = marts.sql(
        "select model, run, item_id, answer_en, answer_it, answer_fa, disagreement_type, "
        "full_agreement from marts.fct_mcq_item_agreement"
    ).df()
    merged = expected.merge(got, on=["model", "run", "item_id"], validate="one_to_one")
    assert len(merged) == len(expected) == 8 * 60
    assert (merged["en"] == merged["answer_en"]).all()
    assert (merged["fa"] == merged["answer_fa"]).all()
    assert (merged["type"] == merged["disagreement_type"]).all()
    assert (merged["full_agreement"] == (merged["type"] == "all_same")).all()


def test_summary_matches_and_partitions(marts, expected):
    got = marts.sql("select * from marts.mcq_agreement_summary").df().set_index(["model", "run"])
    for (model, run), items in expected.groupby(["model", "run"]):
        row = got.loc[(model, run)]
        counts = items["type"].value_counts()
        assert row.n_items == 60
        for t in ("all_same", "fa_diverged", "it_diverged", "en_diverged", "all_different"):
            assert row[f"n_{t}"] == counts.get(t, 0)
        # the five types partition the items (the study's notebooks double-counted)
        assert (
            sum(
                row[f"n_{t}"]
                for t in ("all_same", "fa_diverged", "it_diverged", "en_diverged", "all_different")
            )
            == 60
        )
        assert row.agreement_pct == pytest.approx(100 * counts.get("all_same", 0) / 60)
        assert row.disagreement_pct == pytest.approx(100 - row.agreement_pct)
        fa_shares = items["fa"].value_counts(normalize=True) * 100
        for letter in "abcd":
            assert row[f"fa_pct_{letter}"] == pytest.approx(fa_shares.get(letter.upper(), 0.0))
        for lang in ("en", "it", "fa"):
            assert row[f"entropy_{lang}_bits"] == pytest.approx(
                scipy_entropy(items[lang].value_counts().to_numpy(), base=2), abs=1e-12
            )
        assert row.agreement_ci_low <= row.agreement_pct <= row.agreement_ci_high
        # the three rates share their resamples: disagreement mirrors agreement exactly
        assert row.disagreement_ci_low == pytest.approx(100 - row.agreement_ci_high)
        assert row.disagreement_ci_high == pytest.approx(100 - row.agreement_ci_low)


def test_published_gpt4o_figures(marts):
    # the study's GPT-4o base run: 30 of 60 agree; its notebooks reported 37 "all different"
    # (30 agreeing + 7 truly all different): here the 7 stand alone
    row = marts.execute(
        "select n_full_agreement, n_all_different, agreement_ci_low, agreement_ci_high "
        "from marts.mcq_agreement_summary where model = 'GPT-4o' and run = 'base'"
    ).fetchone()
    assert row[:2] == (30, 7)
    assert row[2] == pytest.approx(36.6667, abs=1.7) and row[3] == pytest.approx(63.3333, abs=1.7)


def test_domain_counts_match(marts, expected):
    got = marts.sql("select * from marts.mcq_domain_disagreement").df()
    exp = (
        expected.assign(disagree=expected["type"] != "all_same")
        .groupby(["model", "run", "domain"])
        .agg(n_items=("type", "size"), n_disagree=("disagree", "sum"))
        .reset_index()
    )
    merged = exp.merge(got, on=["model", "run", "domain"], suffixes=("_exp", ""))
    assert len(merged) == len(exp) == len(got)
    assert (merged["n_items_exp"] == merged["n_items"]).all()
    assert (merged["n_disagree_exp"] == merged["n_disagree"]).all()


def test_option_frequency_has_every_option_and_matches(marts, expected):
    got = marts.sql("select * from marts.mcq_option_frequency").df()
    assert len(got) == 8 * 3 * 4
    for (model, run), items in expected.groupby(["model", "run"]):
        for lang in ("en", "it", "fa"):
            counts = items[lang].value_counts()
            cell = got[(got.model == model) & (got.run == run) & (got.language == lang)]
            for option in "ABCD":
                assert cell.loc[cell.option == option, "n"].item() == counts.get(option, 0)


def test_order_effect_consistency_matches(marts, expected):
    got = marts.sql("select * from marts.mcq_order_effect").df().set_index("model")
    assert sorted(got.index) == ["GPT-4o", "LLaMA 3.1 70B"]
    flip = dict(zip("ABCD", "DCBA", strict=True))
    for model in got.index:
        base = expected[(expected.model == model) & (expected.run == "base")].set_index("item_id")
        shuf = expected[(expected.model == model) & (expected.run == "shuffled")].set_index(
            "item_id"
        )
        for lang in ("en", "it", "fa"):
            same = (base[lang] == shuf[lang].map(flip)).mean() * 100
            assert got.loc[model, f"same_original_pct_{lang}"] == pytest.approx(same)
        agreement = lambda d: (d["type"] == "all_same").mean() * 100  # noqa: E731
        assert got.loc[model, "agreement_pct_diff"] == pytest.approx(
            agreement(shuf) - agreement(base)
        )


def test_bootstrap_marts_are_reproducible(warehouse, tmp_path):
    """The same seed gives the same marts: a second build into another file is identical."""
    import duckdb

    from concord_io.project import NO_DATA_TESTS, run_dbt

    other = tmp_path / "again.duckdb"
    # tables only: the data tests of these inputs ran on the shared warehouse
    run_dbt(["build", "--select", "+mcq_bootstrap_ci", *NO_DATA_TESTS], PROJECT_ROOT, other)
    query = "select * from marts.mcq_bootstrap_ci order by model, run, metric"
    with duckdb.connect(str(warehouse), read_only=True) as a, duckdb.connect(str(other)) as b:
        pd.testing.assert_frame_equal(a.sql(query).df(), b.sql(query).df())
        n = a.sql("select distinct n_resamples from marts.mcq_bootstrap_ci").fetchall()
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
                "select model, n_items, agreement_pct, agreement_ci_low, agreement_ci_high, "
                "entropy_en_bits from marts.mcq_agreement_summary"
            ).fetchall()
        }
        entropy = con.execute(
            "select entropy_bits, entropy_norm, ci_low, ci_high from marts.mcq_choice_entropy "
            "where model = 'Same'"
        ).fetchall()
    one_agrees = rows[0].split(",")[-3:]
    expected = 100.0 if len(set(one_agrees)) == 1 else 0.0
    assert summary["One"] == (1, expected, expected, expected, 0.0)
    assert summary["Same"] == (60, 100.0, 100.0, 100.0, 0.0)
    assert entropy == [(0.0, 0.0, 0.0, 0.0)] * 3
