"""Answers in long format and from lm-evaluation-harness sample logs give the same marts as
the same answers in the study's wide files; their bad records are quarantined with file,
row and reason.

The sample logs are written as the harness writes them with ``--log_samples``
(``lm_eval/loggers/evaluation_tracker.py``, ``save_results_samples``): one JSON object per
line, ``<output_path>/<model_name_sanitized>/samples_<task>_<date_id>.jsonl``, with
``doc_id`` (0-based), ``doc``, ``target``, ``arguments`` ({"gen_args_<i>": {"arg_0":
context, "arg_1": continuation}}), and ``resps`` / ``filtered_resps`` passed through
``sanitize_list``, which turns every leaf into a string: for a loglikelihood request per
choice ``resps[i] == [["-1.25", "False"]]`` and ``filtered_resps[i] == ["-1.25", "False"]``.
"""

from __future__ import annotations

import csv
import json
import os
import time
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from concord_io.project import NO_DATA_TESTS, run_dbt

LANGUAGES = ("en", "it", "fa")
LETTERS = "ABCD"
GPT4O = "GPT4o_Merged_Multilingual.csv"
LLAMA = "LLaMA3.2_Merged_Multilingual.csv"
SUMMARY = (
    "select * exclude (model) from marts.mcq_agreement_summary where model = ? and run = 'base'"
)
FREQUENCY = (
    "select * exclude (model) from marts.mcq_option_frequency "
    "where model = ? and run = 'base' order by all"
)


def wide_answers(project: Path, file: str, prefix: str) -> list[dict[str, str]]:
    """item_id (1-based row position), language and answer of one shipped wide file."""
    path = project / "seeds" / "mcq" / "answers" / file
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return [
        {"item_id": str(i), "language": lang, "answer": row[f"{prefix}_{lang.upper()}"]}
        for i, row in enumerate(rows, start=1)
        for lang in LANGUAGES
    ]


def unregister(project: Path, file: str) -> None:
    (project / "seeds" / "mcq" / "answers" / file).unlink()
    registry = project / "seeds" / "mcq" / "mcq_answer_registry.csv"
    lines = registry.read_text().splitlines(keepends=True)
    registry.write_text("".join(line for line in lines if not line.startswith(file + ",")))


def sample_line(doc_id: int, answer: str, n_choices: int = 4) -> str:
    """One sample as the harness logs a multiple-choice (loglikelihood) task."""
    chosen = LETTERS.index(answer)
    lls = [-3.5 - 0.25 * i for i in range(n_choices)]
    lls[chosen] = -0.75  # the highest
    sample = {
        "doc_id": doc_id,
        "doc": {
            "question": f"item {doc_id + 1}",
            "choices": [chr(65 + i) for i in range(n_choices)],
        },
        "target": "0",
        "arguments": {
            f"gen_args_{i}": {"arg_0": f"item {doc_id + 1}", "arg_1": f" {chr(65 + i)}"}
            for i in range(n_choices)
        },
        "resps": [[[str(ll), "False"]] for ll in lls],
        "filtered_resps": [[str(ll), "False"] for ll in lls],
        "filter": "none",
        "metrics": ["acc"],
        "doc_hash": "0" * 64,
        "prompt_hash": "0" * 64,
        "target_hash": "0" * 64,
        "acc": float(chosen == 0),
    }
    return json.dumps(sample, ensure_ascii=False)


def write_sources(project_copy: Path) -> tuple[list[dict], list[dict], int]:
    """GPT-4o base as long files and LLaMA 3.2 base as sample logs instead of wide files."""
    sources = project_copy / "seeds" / "mcq" / "answer_sources"
    gpt = wide_answers(project_copy, GPT4O, "GPT4o")
    llama = wide_answers(project_copy, LLAMA, "LLaMA")
    unregister(project_copy, GPT4O)
    unregister(project_copy, LLAMA)

    # GPT-4o base in long format, one language per format
    by_language = {lang: [r for r in gpt if r["language"] == lang] for lang in LANGUAGES}
    with (sources / "gpt4o_en.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, ["model", "run", "item_id", "language", "answer"])
        writer.writeheader()
        writer.writerows({"model": "GPT-4o", "run": "base", **r} for r in by_language["en"])
    pq.write_table(pa.Table.from_pylist(by_language["it"]), sources / "gpt4o_it.parquet")
    with (sources / "gpt4o_fa.jsonl").open("w", encoding="utf-8") as handle:
        for r in by_language["fa"]:
            handle.write(json.dumps({"model": "GPT-4o", "run": "base", **r}) + "\n")
        handle.write("{not json\n")  # line 61: quarantined

    # LLaMA 3.2 base as harness sample logs, one task per language
    logs = sources / "lm_eval" / "meta-llama__Llama-3.2-3B"
    logs.mkdir(parents=True)
    not_letters = 0
    for lang in LANGUAGES:
        lines = []
        for r in llama:
            if r["language"] != lang:
                continue
            if r["answer"] in LETTERS:
                lines.append(sample_line(int(r["item_id"]) - 1, r["answer"]))
            else:  # a pipeline error in the wide file: no sample, so the item is incomplete
                not_letters += 1
        if lang == "fa":
            lines.append(sample_line(99, "A", n_choices=5))  # doc 99: five choices
        path = logs / f"samples_xcloze_{lang}_2025-05-05T10-00-00.123456.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    (project_copy / "seeds" / "mcq" / "mcq_answer_sources.csv").write_text(
        "file,format,model,run,language,presented_option_order,item_key\n"
        "gpt4o_en.csv,long,,,,,\n"
        "gpt4o_it.parquet,long,GPT-4o,base,,ABCD,\n"
        "gpt4o_fa.jsonl,long,,,,,\n"
        + "".join(
            f"lm_eval/meta-llama__Llama-3.2-3B/samples_xcloze_{lang}_*.jsonl,"
            f"lm_eval,LLaMA 3.2,base,{lang},,\n"
            for lang in LANGUAGES
        )
    )
    return gpt, llama, not_letters


MARTS = ["+path:models/marts/mcq", "+dq_quarantine"]


def test_long_files_and_sample_logs_give_the_marts_of_the_wide_files(project_copy, warehouse):
    _, llama, not_letters = write_sources(project_copy)
    database = project_copy / "concord.duckdb"
    run_dbt(["build", "--select", *MARTS], project_copy, database)
    with (
        duckdb.connect(str(database), read_only=True) as got,
        duckdb.connect(str(warehouse), read_only=True) as shipped,
    ):
        for model in ("GPT-4o", "LLaMA 3.2"):
            assert (
                got.execute(SUMMARY, [model]).fetchall()
                == shipped.execute(SUMMARY, [model]).fetchall()
            )
            assert (
                got.execute(FREQUENCY, [model]).fetchall()
                == shipped.execute(FREQUENCY, [model]).fetchall()
            )
        quarantined = got.execute(
            "select source, source_row, reason from marts.dq_quarantine "
            "where reason like 'mcq answer record:%' order by source"
        ).fetchall()
        n_llama = got.execute(
            "select count(*) from intermediate.int_mcq_answers_normalised where model = 'LLaMA 3.2'"
        ).fetchone()[0]
    assert quarantined == [
        ("gpt4o_fa.jsonl", 61, "mcq answer record: not a JSON object"),
        (
            "lm_eval/meta-llama__Llama-3.2-3B/samples_xcloze_fa_2025-05-05T10-00-00.123456.jsonl",
            len([r for r in llama if r["language"] == "fa" and r["answer"] in LETTERS]) + 1,
            "mcq answer record: more choices than options ABCD",
        ),
    ]
    assert n_llama == len(llama) - not_letters


def mcq_tables(con) -> dict[str, list[tuple]]:
    """Every cross-lingual table (the kept group versions included), but the file
    inspections: they hold when each file was read."""
    names = con.execute(
        "select schema_name || '.' || table_name from duckdb_tables() "
        "where (table_name like '%mcq%' or table_name = 'dq_quarantine') "
        "and not table_name like '%\\_\\_file\\_inspections' escape '\\'"
    ).fetchall()
    return {name: con.execute(f"select * from {name} order by all").fetchall() for (name,) in names}


def build_marts(project: Path, database: Path, *flags: str) -> None:
    run_dbt(["build", "--select", *MARTS, *flags], project, database)


# The incremental builds run no data test (NO_DATA_TESTS): their tables are then compared
# with a full rebuild's, which runs every data test, so those hold for them too.


def assert_same_tables(incremental: Path, full: Path) -> None:
    with (
        duckdb.connect(str(incremental), read_only=True) as got,
        duckdb.connect(str(full), read_only=True) as rebuilt,
    ):
        got_tables, full_tables = mcq_tables(got), mcq_tables(rebuilt)
    assert got_tables.keys() == full_tables.keys()
    assert {
        "marts.mcq_agreement_summary",
        "intermediate.int_mcq_items_classified",
        "intermediate.fct_mcq_item_agreement__group_versions",
    } < set(got_tables)
    for name, rows in full_tables.items():
        assert got_tables[name] == rows, name


def test_incremental_build_after_adding_changing_and_removing_files_equals_a_full_rebuild(
    project_copy, tmp_path
):
    """Answer files are append-only inputs: an incremental build reads only new or changed
    files, drops removed ones, recomputes only the models and runs whose answers changed,
    and leaves every table as a full rebuild would."""
    write_sources(project_copy)
    incremental, full = tmp_path / "incremental.duckdb", tmp_path / "full.duckdb"
    build_marts(project_copy, incremental, *NO_DATA_TESTS)
    seeds = project_copy / "seeds" / "mcq"
    registry = seeds / "mcq_answer_registry.csv"
    # a new model's wide file, appended
    shuffled = seeds / "answers" / "GPT4o_Shuffled_Merged_Multilingual.csv"
    (seeds / "answers" / "Copy_Merged_Multilingual.csv").write_bytes(shuffled.read_bytes())
    with registry.open("a") as handle:
        handle.write("Copy_Merged_Multilingual.csv,GPT-4o copy,GPT4o,base,ABCD\n")
    # a changed long file, and a removed one
    long_en = seeds / "answer_sources" / "gpt4o_en.csv"
    text = long_en.read_text(encoding="utf-8")
    first = text.splitlines()[1]
    changed = first[:-1] + ("C" if first[-1] != "C" else "D")
    long_en.write_text(text.replace(first, changed, 1), encoding="utf-8")
    (seeds / "answer_sources" / "gpt4o_fa.jsonl").unlink()
    sources = seeds / "mcq_answer_sources.csv"
    sources.write_text(
        "".join(
            line
            for line in sources.read_text().splitlines(keepends=True)
            if not line.startswith("gpt4o_fa.jsonl")
        )
    )
    build_marts(project_copy, incremental, *NO_DATA_TESTS)
    build_marts(project_copy, full, "--full-refresh")
    assert_same_tables(incremental, full)
    with duckdb.connect(str(incremental), read_only=True) as got:
        (n_copy,) = got.execute(
            "select n_items from marts.mcq_agreement_summary where model = 'GPT-4o copy'"
        ).fetchone()
        (answer,) = got.execute(
            "select answer_raw from intermediate.int_mcq_answers_normalised "
            "where source_file = 'gpt4o_en.csv' and source_row = 1"
        ).fetchone()
        (n_fa,) = got.execute(
            "select count(*) from intermediate.int_mcq_answers_normalised "
            "where source_file = 'gpt4o_fa.jsonl'"
        ).fetchone()
    assert n_copy == 60 and answer == changed[-1] and n_fa == 0

    # a model loses its shuffled run (its pairs go), another is renamed in the registry;
    # a row of a model and run nothing touched is marked (a column nothing but the fact
    # table reads, set to another letter): it must not be computed again
    unregister(project_copy, "LLaMA3.1_Shuffled_Merged_Multilingual.csv")
    registry.write_text(registry.read_text().replace("GPT-4o copy,", "GPT-4o copy 2,"))
    tables = ("intermediate.int_mcq_items_classified", "marts.fct_mcq_item_agreement")
    marked = "where model = 'mBERT' and run = 'base' and item_id = 1"
    with duckdb.connect(str(incremental)) as con:
        (option,) = con.execute(f"select original_option_en from {tables[0]} {marked}").fetchone()
        mark = "B" if option == "A" else "A"
        for table in tables:
            con.execute(f"update {table} set original_option_en = '{mark}' {marked}")
    build_marts(project_copy, incremental, *NO_DATA_TESTS)
    with duckdb.connect(str(incremental)) as con:
        for table in tables:
            got = con.execute(f"select original_option_en from {table} {marked}").fetchone()
            assert got == (mark,), table
            con.execute(f"update {table} set original_option_en = ? {marked}", [option])
        paired = con.execute(
            "select distinct model from intermediate.int_mcq_runs_paired order by model"
        ).fetchall()
        renamed = con.execute(
            "select distinct model from marts.fct_mcq_item_agreement where model like 'GPT-4o c%'"
        ).fetchall()
    assert paired == [("GPT-4o",)] and renamed == [("GPT-4o copy 2",)]
    build_marts(project_copy, full, "--full-refresh")
    assert_same_tables(incremental, full)


def test_a_key_answered_twice_is_quarantined_in_both_files_and_recovers_when_one_goes(
    project_copy,
):
    """Two records for one model, run, item and language (here in two files) are both
    quarantined with the reason; removing the second file makes the first one's record an
    answer again on the next (incremental) build: the duplicate is part of its version."""
    seeds = project_copy / "seeds" / "mcq"
    sources = seeds / "answer_sources"
    header = "model,run,item_id,language,answer\n"
    (sources / "first.csv").write_text(
        header + "Dup model,base,1,en,A\nDup model,base,2,en,B\n", encoding="utf-8"
    )
    (sources / "second.csv").write_text(header + "Dup model,base,1,en,C\n", encoding="utf-8")
    registry = seeds / "mcq_answer_sources.csv"
    registry.write_text(
        "file,format,model,run,language,presented_option_order,item_key\n"
        "first.csv,long,,,,ABCD,\nsecond.csv,long,,,,ABCD,\n"
    )
    database = project_copy / "concord.duckdb"
    build = ["build", "--select", "+int_mcq_answers_normalised", "+dq_quarantine"]
    run_dbt(build, project_copy, database)
    reason = "more than one answer for this model, run, item and language"
    with duckdb.connect(str(database), read_only=True) as con:
        quarantined = con.execute(
            "select source, source_row, reason from marts.dq_quarantine "
            "where reason like 'mcq answer record:%' order by all"
        ).fetchall()
        answers = con.execute(
            "select item_id, answer from intermediate.int_mcq_answers_normalised "
            "where model = 'Dup model' order by all"
        ).fetchall()
    assert quarantined == [
        ("first.csv", 1, f"mcq answer record: {reason}"),
        ("second.csv", 1, f"mcq answer record: {reason}"),
    ]
    assert answers == [(2, "B")]

    (sources / "second.csv").unlink()
    registry.write_text(
        "file,format,model,run,language,presented_option_order,item_key\nfirst.csv,long,,,,ABCD,\n"
    )
    run_dbt(build, project_copy, database)
    with duckdb.connect(str(database), read_only=True) as con:
        answers = con.execute(
            "select item_id, answer from intermediate.int_mcq_answers_normalised "
            "where model = 'Dup model' order by all"
        ).fetchall()
    assert answers == [(1, "A"), (2, "B")]


def test_an_answer_file_is_read_again_only_when_its_size_or_modification_time_changed(
    project_copy,
):
    """What inspecting a wide answer file found (md5, header, encoding checks) is kept, and
    the next build reads the file again only when its size or modification time changed
    (the stat rule of git's index and rsync), or when the file was modified in the second
    its inspection began or later (git's "racily clean" files). `--full-refresh` reads
    every file. A NUL byte written in place, with the size and modification time put back,
    shows which builds read the file."""
    answers = project_copy / "seeds" / "mcq" / "answers"
    database = project_copy / "concord.duckdb"
    build = ["build", "--select", "+stg_mcq__answer_files"]
    unchanged, racy = answers / GPT4O, answers / LLAMA
    future = time.time() + 3600  # modified "after" every inspection of this test
    os.utime(racy, (future, future))
    run_dbt(build, project_copy, database)

    def put_a_nul_byte_in(path: Path) -> bytes:
        stat, data = path.stat(), path.read_bytes()
        path.write_bytes(data[:-2] + b"\0" + data[-1:])  # the last cell's last character
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        return data

    put_a_nul_byte_in(unchanged)
    run_dbt(build, project_copy, database)  # the same stat: not read again

    original = put_a_nul_byte_in(racy)
    result = run_dbt(build, project_copy, database, check=False)
    assert result.returncode != 0
    assert f"{LLAMA}: contains NUL bytes" in result.stdout and GPT4O not in result.stdout

    racy.write_bytes(original)
    result = run_dbt([*build, "--full-refresh"], project_copy, database, check=False)
    assert result.returncode != 0
    assert f"{GPT4O}: contains NUL bytes" in result.stdout


def test_a_language_var_changed_under_an_incremental_build_stops_it_until_a_full_refresh(
    project_copy,
):
    """A file's version covers its inputs, not the vars; mcq_languages (and mcq_options)
    name the staging model's columns, so changing one stops the next incremental build
    (dbt: schemas out of sync) instead of leaving answers normalised under the old value."""
    database = project_copy / "concord.duckdb"
    build = ["build", "--select", "+stg_mcq__answer_files"]
    run_dbt(build, project_copy, database)
    changed = [*build, "--vars", "{mcq_languages: [en, it]}"]
    result = run_dbt(changed, project_copy, database, check=False)
    assert result.returncode != 0
    assert "stg_mcq__answer_files" in result.stdout and "out of sync" in result.stdout
    run_dbt([*changed, "--full-refresh"], project_copy, database)
    with duckdb.connect(str(database), read_only=True) as con:
        columns = {
            name
            for (name,) in con.execute(
                "select column_name from duckdb_columns() "
                "where table_name = 'stg_mcq__answer_files' and column_name like 'answer_%'"
            ).fetchall()
        }
    assert columns == {"answer_en", "answer_it"}
