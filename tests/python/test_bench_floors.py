"""The long curve's facts floor with the published columns (bench/bench_mcq.py) writes what
the marts publish: each item typed as the three-language floor types it, each departing
language named, each answer's ``departs`` from its item's majority, and both keys unique."""

from __future__ import annotations

import duckdb
from bench_modules import bench_module

from concord_io.project import copy_project

#: the three-language floor's type, as the published type and departing languages
THREE_LANGUAGE_TYPES = {
    "all_same": ("full_agreement", None),
    "en_diverged": ("one_diverged", "en"),
    "it_diverged": ("one_diverged", "it"),
    "fa_diverged": ("one_diverged", "fa"),
    "all_different": ("no_majority", None),
    "incomplete": ("incomplete", None),
}


def test_the_published_facts_floor_types_items_as_the_three_language_floor(tmp_path):
    bench = bench_module("bench_mcq")
    generate = bench_module("generate_mcq")
    project = copy_project(tmp_path / "project")
    generate.generate_long(project, 6_000)
    con = duckdb.connect(str(tmp_path / "floors.duckdb"))
    duplicates = con.execute(bench.hand_written_long_published_facts(project)).fetchall()
    assert duplicates == [(0, 0)]
    published = {
        (run_id, item_id): (kind, departing)
        for run_id, item_id, kind, departing in con.execute(
            "select run_id, item_id, disagreement_type, departing_languages from items_fact"
        ).fetchall()
    }
    # departs: a valid answer of a complete item off its majority (false on agreement)
    (wrong,) = con.execute(
        """
        select count(*) from answers_fact as a join items_fact as i using (run_id, item_id)
        where a.departs is distinct from case when i.disagreement_type <> 'incomplete'
            then coalesce(a.chosen_option <> i.majority_option, false) end
        """
    ).fetchone()
    assert wrong == 0
    (n_answers,) = con.execute("select count(*) from answers_fact").fetchone()
    con.execute(bench.hand_written_long_facts(project))
    three = {
        (f"{model}--{run}", str(item_id)): THREE_LANGUAGE_TYPES[kind]
        for model, run, item_id, kind in con.execute(
            "select model, run, item_id, type from items_fact"
        ).fetchall()
    }
    assert published == three
    kinds = {kind for kind, _ in published.values()}
    assert {"full_agreement", "one_diverged", "no_majority"} <= kinds
    assert n_answers == con.execute("select count(*) from answers_fact").fetchone()[0]
