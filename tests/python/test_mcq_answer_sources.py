"""Answers in long format and from lm-evaluation-harness sample logs give the same marts as
the same answers in the study's wide files; a record that cannot be an answer is
quarantined with file, row and reason, a file that is not what it says is refused in one
line, and the landing is read again only where an input changed.

The sample logs are written as the harness writes them with ``--log_samples``
(``lm_eval/loggers/evaluation_tracker.py``, ``save_results_samples``): one JSON object per
line, ``<output_path>/<model_name_sanitized>/samples_<task>_<date_id>.jsonl``, with
``doc_id`` (0-based), ``doc``, ``target``, ``arguments`` ({"gen_args_<i>": {"arg_0":
context, "arg_1": continuation}}), and ``resps`` / ``filtered_resps`` passed through
``sanitize_list``, which turns every leaf into a string: for a loglikelihood request per
choice ``resps[i] == [["-1.25", "False"]]`` and ``filtered_resps[i] == ["-1.25", "False"]``.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import re
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy.spatial.distance import jensenshannon

from concord_io import dbt_sequence
from concord_io.project import NO_DATA_TESTS, copy_project, dbt_invocation, run_dbt
from concord_io.report import build_report
from concord_io.serving.publish import publish

LANGUAGES = ("en", "it", "fa")
LETTERS = "ABCD"
LLAMA_HUB_ID = "meta-llama/Llama-3.2-3B"
GPT4O = "GPT4o_Merged_Multilingual.csv"
LLAMA = "LLaMA3.2_Merged_Multilingual.csv"
# a run's figures, without what names the run (its id hashes the source it was read from)
SUMMARY = (
    "select * exclude (run_id, model) from marts.mcq_agreement_summary_v2 "
    "where model = ? and variant = 'base'"
)
FREQUENCY = (
    "select * exclude (run_id, model) from marts.mcq_option_frequency_v2 "
    "where model = ? and variant = 'base' order by all"
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


def unregister(project: Path, file: str, registry: str = "mcq_answer_registry") -> None:
    """``file`` (a file name, or a registry line's start) moved out and its registry line
    removed."""
    mcq = project / "seeds" / "mcq"
    for path in (mcq / ("answers" if registry == "mcq_answer_registry" else "items")).glob("*"):
        if path.name.startswith(file):
            path.unlink()
    registered = mcq / f"{registry}.csv"
    lines = registered.read_text().splitlines(keepends=True)
    registered.write_text("".join(line for line in lines if not line.startswith(file)))


def sample_logliks(answer: str, n_choices: int = 4) -> list[float]:
    """The log-likelihoods sample_line logs: ``answer``'s the highest."""
    lls = [-1.0 - 0.25 * i for i in range(n_choices)]
    lls[ord(answer) - ord("A")] = -0.75
    return lls


def option_texts(doc_id: int, n_choices: int = 4) -> list[str]:
    """The options' texts (without the harness's leading space): letters repeated 1, 4, 7
    or 10 times, the lengths turning with the document, so that acc_norm's pick is not
    always acc's."""
    return [chr(65 + i) * (1 + 3 * ((doc_id + i) % 4)) for i in range(n_choices)]


def gold_index(doc_id: int, n_choices: int = 4) -> int:
    return doc_id % n_choices


def sample_line(doc_id: int, answer: str, n_choices: int = 4) -> str:
    """One sample as the harness logs a multiple-choice (loglikelihood) task; its target
    in each of the ways the harness logs one (``save_results_samples`` writes
    ``str(target)``: an index as text; a task whose target is the option's text)."""
    lls = sample_logliks(answer, n_choices)
    texts = option_texts(doc_id, n_choices)
    gold = gold_index(doc_id, n_choices)
    sample = {
        "doc_id": doc_id,
        "doc": {"question": f"item {doc_id + 1}", "choices": texts},
        "target": [str(gold), gold, texts[gold]][doc_id % 3],
        "arguments": {
            f"gen_args_{i}": {"arg_0": f"item {doc_id + 1}", "arg_1": f" {text}"}
            for i, text in enumerate(texts)
        },
        "resps": [[[str(ll), "False"]] for ll in lls],
        "filtered_resps": [[str(ll), "False"] for ll in lls],
        "filter": "none",
        "metrics": ["acc", "acc_norm"],
        "doc_hash": "0" * 64,
        "prompt_hash": "0" * 64,
        "target_hash": "0" * 64,
        "acc": harness_acc(lls, gold),
        "acc_norm": harness_acc_norm(lls, texts, gold),
    }
    return json.dumps(sample, ensure_ascii=False)


def harness_acc(lls: list[float], gold: int) -> float:
    """lm_eval's ConfigurableTask.process_results, multiple_choice: ``acc``."""
    return 1.0 if np.argmax(lls) == gold else 0.0


def harness_acc_norm(lls: list[float], choices: list[str], gold: int) -> float:
    """The same, ``acc_norm``: completion_len = len(choice) in characters."""
    completion_len = np.array([float(len(i)) for i in choices])
    return 1.0 if np.argmax(np.array(lls) / completion_len) == gold else 0.0


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
            lines.append(sample_line(99, "A", n_choices=27))  # doc 99: more keys than A-Z
        path = logs / f"samples_xcloze_{lang}_2025-05-05T10-00-00.123456.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    (project_copy / "seeds" / "mcq" / "mcq_answer_sources.csv").write_text(
        "file,format,model,run,language,presented_option_order,item_key,task_pattern,domain_field\n"
        "gpt4o_en.csv,long,,,,,,,\n"
        "gpt4o_it.parquet,long,GPT-4o,base,,ABCD,,,\n"
        "gpt4o_fa.jsonl,long,,,,,,,\n"
        + "".join(
            f"lm_eval/meta-llama__Llama-3.2-3B/samples_xcloze_{lang}_*.jsonl,"
            f"lm_eval,{LLAMA_HUB_ID},base,{lang},,,,\n"
            for lang in LANGUAGES
        )
    )
    # the logs name LLaMA by its hub id; seed model_aliases gives every mart the study's name
    with (project_copy / "seeds" / "models" / "model_aliases.csv").open("a") as aliases:
        aliases.write(f"{LLAMA_HUB_ID},LLaMA 3.2\n")
    return gpt, llama, not_letters


MARTS = ["+path:models/marts/mcq", "+dq_quarantine"]


@pytest.fixture(scope="module")
def sources_built(tmp_path_factory):
    """A project copy whose GPT-4o and LLaMA 3.2 base runs are long files and sample logs,
    built: (database, GPT-4o's answers, LLaMA's answers, LLaMA's answers that are no
    letter)."""
    project = copy_project(tmp_path_factory.mktemp("answer_sources") / "project")
    gpt, llama, not_letters = write_sources(project)
    database = project / "concord.duckdb"
    run_dbt(["build", "--select", *MARTS], project, database)
    return database, gpt, llama, not_letters


@pytest.mark.warehouse
def test_long_files_and_sample_logs_give_the_marts_of_the_wide_files(sources_built, warehouse):
    database, _, llama, not_letters = sources_built
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
        pairs = got.execute(
            "select language_a, language_b, n_scored_items, rank_c, js_divergence, n_items "
            "from marts.mcq_language_pair_consistency where model = ? and variant = 'base' "
            "order by all",
            ["LLaMA 3.2"],
        ).fetchall()
        llama_as_landed = got.execute(
            "select distinct model_as_landed from staging.stg_mcq__runs where model = 'LLaMA 3.2'"
        ).fetchall()
        letters_only = got.execute(
            "select count(*) from marts.mcq_language_pair_consistency "
            "where model = 'GPT-4o' and variant = 'base' and n_scored_items = 0 and rank_c is null"
        ).fetchone()[0]
    assert quarantined == [
        (
            "lm_eval/meta-llama__Llama-3.2-3B/samples_xcloze_fa_2025-05-05T10-00-00.123456.jsonl",
            len([r for r in llama if r["language"] == "fa" and r["answer"] in LETTERS]) + 1,
            "mcq answer record: more than 26 choices",
        ),
    ]
    assert n_llama == len(llama) - not_letters
    # the same figures as the wide file's LLaMA 3.2 (above), though the logs spell it otherwise
    assert llama_as_landed == [(LLAMA_HUB_ID,)]
    # the sample logs' option scores: RankC and Jensen-Shannon per language pair, recomputed
    # from the logged log-likelihoods (a transcription of the definitions and scipy)
    assert letters_only == 3  # a model with letters only: the answer figures, no score figures
    scored = {
        lang: {
            int(r["item_id"]): sample_probabilities(r["answer"])
            for r in llama
            if r["language"] == lang and r["answer"] in LETTERS
        }
        for lang in LANGUAGES
    }
    assert [(a, b) for a, b, *_ in pairs] == [("en", "fa"), ("en", "it"), ("fa", "it")]
    for language_a, language_b, n_scored, got_rank_c, got_js, _ in pairs:
        items = sorted(scored[language_a].keys() & scored[language_b].keys())
        assert n_scored == len(items) > 0
        p, q = ([scored[lang][i] for i in items] for lang in (language_a, language_b))
        want_rank_c = np.mean([rank_c_by_definition(x, y) for x, y in zip(p, q, strict=True)])
        want_js = np.mean([jensenshannon(x, y, base=2) ** 2 for x, y in zip(p, q, strict=True)])
        assert got_rank_c == pytest.approx(want_rank_c, abs=1e-12)
        assert got_js == pytest.approx(want_js, abs=1e-12)


ACCURACY = (
    "select language, n_gold_items, n_items, n_correct, accuracy_pct, accuracy_std_error, "
    "coverage_pct, n_scored_items, accuracy_norm_pct, accuracy_norm_std_error, brier_score, "
    "expected_calibration_error, brier_score_norm, expected_calibration_error_norm "
    "from marts.mcq_accuracy where model = ? and variant = 'base' order by language"
)


def brier_by_definition(p: list[list[float]], gold: list[int]) -> float:
    """Mean over items of the sum over options of (p - y)^2, y the one-hot gold."""
    terms = [sum((q - (k == g)) ** 2 for k, q in enumerate(row)) for row, g in zip(p, gold,
             strict=True)]  # fmt: skip
    return float(np.mean(terms))


@pytest.mark.warehouse
def test_sample_logs_give_accuracy_and_calibration_as_the_harness_and_the_definitions(
    sources_built,
):
    """The logs' targets (an index as text, as a number, an option's text) are the gold
    of every run: LLaMA 3.2's logs give acc and acc_norm as the harness computes them from
    the logged log-likelihoods (its lm_eval code transcribed), its standard error as
    mean_stderr, and Brier and ECE from the two softmaxes (the definitions transcribed);
    GPT-4o's long files, letters only, are graded against the same golds with null
    calibration. Per language, the two compared on the items both answered."""
    from test_consistency import ece_by_definition, lm_eval_mean_stderr

    database, gpt, llama, _ = sources_built
    with duckdb.connect(str(database), read_only=True) as con:
        got = {
            model: {row[0]: row[1:] for row in con.execute(ACCURACY, [model]).fetchall()}
            for model in ("LLaMA 3.2", "GPT-4o")
        }
        pairs = con.execute(
            "select language, n_items, accuracy_pct_a, accuracy_pct_b, n_only_a, n_only_b "
            "from marts.mcq_model_accuracy_comparison "
            "where model_a = 'GPT-4o' and model_b = 'LLaMA 3.2' and variant = 'base' "
            "order by language"
        ).fetchall()
        across = con.execute(
            "select n_items, n_all_correct, n_none_correct, n_consistently_wrong "
            "from marts.mcq_accuracy_across_languages "
            "where model = 'LLaMA 3.2' and variant = 'base'"
        ).fetchall()
    gpt_answers = {(r["item_id"], r["language"]): r["answer"] for r in gpt}
    by_item: dict[str, list[tuple[bool, str]]] = {}
    for lang in LANGUAGES:
        samples = [r for r in llama if r["language"] == lang and r["answer"] in LETTERS]
        docs = [int(r["item_id"]) - 1 for r in samples]
        gold = [gold_index(d) for d in docs]
        lls = [sample_logliks(r["answer"]) for r in samples]
        texts = [option_texts(d) for d in docs]
        acc = [harness_acc(x, g) for x, g in zip(lls, gold, strict=True)]
        acc_norm = [harness_acc_norm(x, t, g) for x, t, g in zip(lls, texts, gold, strict=True)]
        assert 0 < sum(acc_norm) and acc_norm != acc  # the lengths change some picks
        p = [softmax(x) for x in lls]
        p_norm = [softmax([v / len(t) for v, t in zip(x, ts, strict=True)])
                  for x, ts in zip(lls, texts, strict=True)]  # fmt: skip
        n = len(samples)
        want = (
            n, n, sum(acc), 100 * np.mean(acc), 100 * lm_eval_mean_stderr(acc), 100.0,
            n, 100 * np.mean(acc_norm), 100 * lm_eval_mean_stderr(acc_norm),
            brier_by_definition(p, gold), ece_by_definition(np.array(p), np.array(gold)),
            brier_by_definition(p_norm, gold),
            ece_by_definition(np.array(p_norm), np.array(gold)),
        )  # fmt: skip
        assert got["LLaMA 3.2"][lang] == pytest.approx(want, abs=1e-9), lang
        # GPT-4o answered every item: graded on the items the logs give a gold
        gpt_correct = [
            gpt_answers[(str(d + 1), lang)] == LETTERS[g] for d, g in zip(docs, gold, strict=True)
        ]
        n_correct = sum(gpt_correct)
        assert got["GPT-4o"][lang][:6] == pytest.approx(
            (n, n, n_correct, 100 * n_correct / n, 100 * lm_eval_mean_stderr(gpt_correct), 100.0)
        )
        assert got["GPT-4o"][lang][6] == 0 and all(v is None for v in got["GPT-4o"][lang][7:])
        pair = next(row for row in pairs if row[0] == lang)
        only_gpt = sum(g and not a for g, a in zip(gpt_correct, acc, strict=True))
        only_llama = sum(a and not g for g, a in zip(gpt_correct, acc, strict=True))
        assert pair[1:] == pytest.approx(
            (n, 100 * n_correct / n, 100 * np.mean(acc), only_gpt, only_llama)
        )
        for r, d, a in zip(samples, docs, acc, strict=True):
            by_item.setdefault(str(d + 1), []).append((bool(a), r["answer"]))
    complete = [item for item in by_item.values() if len(item) == len(LANGUAGES)]
    none = [item for item in complete if not any(c for c, _ in item)]
    same_wrong = [item for item in none if len({answer for _, answer in item}) == 1]
    assert across == [
        (len(complete), sum(all(c for c, _ in item) for item in complete), len(none),
         len(same_wrong))
    ]  # fmt: skip
    assert len(same_wrong) > 0


def softmax(scores: list[float]) -> list[float]:
    weights = [math.exp(x - max(scores)) for x in scores]
    return [w / sum(weights) for w in weights]


def sample_probabilities(answer: str, n_choices: int = 4) -> list[float]:
    """The softmax of the log-likelihoods sample_line logs for ``answer``."""
    return softmax(sample_logliks(answer, n_choices))


def rank_c_by_definition(p1: list[float], p2: list[float]) -> float:
    """Qi, Fernández & Bisazza (2023): options ranked by probability, ties by key order."""
    n = len(p1)
    rank1 = sorted(range(n), key=lambda k: (-p1[k], k))
    rank2 = sorted(range(n), key=lambda k: (-p2[k], k))
    weights = [math.exp(n - j) for j in range(1, n + 1)]
    return sum(
        weights[j - 1] / sum(weights) * len(set(rank1[:j]) & set(rank2[:j])) / j
        for j in range(1, n + 1)
    )


def mcq_tables(con) -> dict[str, list[tuple]]:
    """Every cross-lingual table and view (the kept group versions included), and every
    rater table (the models-as-raters and languages-as-raters datasets are cross-lingual
    answers; their coefficients are kept by dataset)."""
    names = con.execute(
        "select schema_name || '.' || table_name from duckdb_tables() "
        "where table_name like '%mcq%' or table_name like '%rater%' "
        "or table_name = 'dq_quarantine' "
        "union all select schema_name || '.' || view_name from duckdb_views() "
        "where schema_name = 'marts' and (view_name like '%mcq%' or view_name like '%rater%')"
    ).fetchall()
    return {name: con.execute(f"select * from {name} order by all").fetchall() for (name,) in names}


# Few resamples: these builds are compared with each other, whatever the number.
FEW_RESAMPLES = ["--vars", "{bootstrap_resamples: 200}"]


# The incremental builds run no data test (NO_DATA_TESTS): their tables are then compared
# with a full rebuild's, which runs every data test, so those hold for them too.


#: What the dbt stage sets in its environment for the build that follows its decision.
STAGE_SETS = ("CONCORD_LANDED", "CONCORD_BUILD_CONTEXT")


def build_changed(
    project: Path, database: Path, *flags: str, full: bool = False, tests: bool = False
) -> list[str]:
    """The marts built as `concord build`'s dbt stage builds them: only the nodes whose code,
    vars or upstream data changed since their last successful build in this warehouse
    (concord_io.node_state), without their data tests unless ``tests``; ``full``: every
    node, as `concord build --full` does, with every data test. Returns the nodes that ran."""
    tests_flags = [] if full or tests else list(NO_DATA_TESTS)
    # the rater marts too: their models-as-raters datasets are cross-lingual answers
    selected = [*MARTS, "+int_rater_coefficients_estimated"]
    args = ["build", "--select", *selected, *(flags or FEW_RESAMPLES), *tests_flags]
    argv, env, cwd = dbt_invocation(args, project, database)
    nodes = ["--nodes", str(database.parent), *(["--full"] if full else [])]
    # in this process, as the harness runs dbt (a process would spend 3 s importing dbt):
    # the stage's environment set and put back
    before = {name: os.environ.get(name) for name in (*env, *STAGE_SETS)}
    here = Path.cwd()
    output = io.StringIO()
    try:
        os.environ.update(env)
        os.chdir(cwd)
        with contextlib.redirect_stdout(output):
            status = dbt_sequence.main([*nodes, *argv])
    finally:
        os.chdir(here)
        for name, value in before.items():
            os.environ.pop(name, None) if value is None else os.environ.update({name: value})
    assert status == 0, output.getvalue()[-6000:]
    assert output.getvalue().splitlines()[-1].startswith("ran ")  # the one-line summary
    record = json.loads((database.parent / "node_state.json").read_text(encoding="utf-8"))
    return sorted(u for u, n in record["nodes"].items() if not n["why"].startswith("unchanged"))


def assert_same_tables(incremental: Path, full: Path) -> None:
    with (
        duckdb.connect(str(incremental), read_only=True) as got,
        duckdb.connect(str(full), read_only=True) as rebuilt,
    ):
        got_tables, full_tables = mcq_tables(got), mcq_tables(rebuilt)
    assert got_tables.keys() == full_tables.keys()
    assert {
        "marts.mcq_agreement_summary_v2",
        "intermediate.int_mcq_items_classified",
        "intermediate.int_mcq_items_classified__group_versions",
        "intermediate.int_rater_coefficients_estimated",
    } < set(got_tables)
    for name, rows in full_tables.items():
        assert got_tables[name] == rows, name


def descendants(database: Path, node: str) -> set[str]:
    """``node`` and every node downstream of it, in the graph of the last build's parse."""
    manifest = json.loads((database.parent / "target" / "manifest.json").read_text())
    found, stack = set(), [node]
    while stack:
        uid = stack.pop()
        if uid not in found:
            found.add(uid)
            stack += manifest["child_map"].get(uid, [])
    return found


def test_a_build_of_what_changed_equals_a_full_rebuild_after_every_kind_of_change(
    project_copy, tmp_path
):
    """The property of issue 71, over a sequence of changes: the reader lands again only the
    runs whose files changed and removes the runs no longer registered; the build runs only
    the nodes whose code, vars or upstream data changed (concord_io.node_state: a changed
    mart runs alone, a Python model, a var or a macro only its readers, nothing new
    nothing), the incremental models read only the file versions they do not hold; and
    every table is what a full rebuild of the final inputs makes. The changes that make
    every row again (a macro, an alias, the item files, a translation, the task's
    languages) come before the narrower ones, so the final comparison covers what the
    narrower ones kept."""
    write_sources(project_copy)
    incremental = project_copy / "concord.duckdb"
    assert len(build_changed(project_copy, incremental)) > 50  # a first build: every node
    # a macro of an incremental model: every answer file's version changes, and every
    # incremental model computes every group again (with their descendants), no other
    macros = project_copy / "macros" / "mcq_answers.sql"
    macros.write_text(macros.read_text().replace(
        "{% macro mcq_language_pairs(runs=none) -%}",
        "{% macro mcq_language_pairs(runs=none) -%}\n    {#- a note -#}",
    ))  # fmt: skip
    root = "model.concord.int_mcq_answers_normalised"
    ran = build_changed(project_copy, incremental)
    linearised = "model.concord.int_mcq_pairwise_agreement_linearised"
    assert {root, linearised} <= set(ran) <= descendants(incremental, root), ran
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
    build_changed(project_copy, incremental)
    with duckdb.connect(str(incremental), read_only=True) as got:
        (n_copy,) = got.execute(
            "select n_items from marts.mcq_agreement_summary_v2 where model = 'GPT-4o copy'"
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
    # table reads, set to a mark): it must not be computed again
    unregister(project_copy, "LLaMA3.1_Shuffled_Merged_Multilingual.csv")
    registry.write_text(registry.read_text().replace("GPT-4o copy,", "GPT-4o copy 2,"))
    # (the fact is a view of the classified items: it shows the mark too)
    tables = ("intermediate.int_mcq_items_classified", "marts.fct_mcq_item_agreement_v2")
    marked = "where model = 'mBERT' and variant = 'base' and item_id = '1'"
    with duckdb.connect(str(incremental)) as con:
        (departing,) = con.execute(
            f"select departing_languages from {tables[0]} {marked}"
        ).fetchone()
        con.execute(f"update {tables[0]} set departing_languages = 'marked' {marked}")
    build_changed(project_copy, incremental)
    with duckdb.connect(str(incremental)) as con:
        for table in tables:
            got = con.execute(f"select departing_languages from {table} {marked}").fetchone()
            assert got == ("marked",), table
        con.execute(f"update {tables[0]} set departing_languages = ? {marked}", [departing])
        paired = con.execute(
            "select distinct split_part(revision_key, '@', 1) from intermediate.int_mcq_runs_paired"
        ).fetchall()
        renamed = con.execute(
            "select distinct model from marts.fct_mcq_item_agreement_v2 "
            "where model like 'GPT-4o c%'"
        ).fetchall()
    assert paired == [("GPT-4o",)] and renamed == [("GPT-4o copy 2",)]
    # a model renamed where docs/scorecard.md says (a seed: its answer files and runs land
    # as they were): the build's context changed, so every row is made again
    aliases = project_copy / "seeds" / "models" / "model_aliases.csv"
    aliases.write_text(aliases.read_text() + "mBERT,mBERT base\n")
    build_changed(project_copy, incremental)
    with duckdb.connect(str(incremental), read_only=True) as con:
        named = con.execute(
            "select distinct model from marts.fct_mcq_item_agreement_v2 where model like 'mBERT%'"
        ).fetchall()
    assert named == [("mBERT base",)]
    # and past the marts, the user's path: the file BI tools and notebooks read and the
    # report name the model as the alias says, nowhere as before
    published = publish(incremental, tmp_path / "serving", skip_quality_gate=True)
    with duckdb.connect(str(published.database), read_only=True) as con:
        served = con.execute(
            "select distinct model from marts.fct_mcq_answers where model like 'mBERT%'"
        ).fetchall()
    assert served == [("mBERT base",)]
    page = build_report(published.database, tmp_path / "report").read_text(encoding="utf-8")
    assert "mBERT base" in page and not re.search(r"mBERT(?! base)", page)
    # the Persian item files unregistered (and moved out) and the task's languages declared
    # in the seed, English alone: every wide run lands again and its Persian and Italian
    # answers are set aside, none of them counted (the wide files themselves are
    # unchanged), and the English item files changed (an option's text); then a translation
    # (a domain's English name, in every language) and Italian added to the task again
    unregister(project_copy, "Low", registry="mcq_item_files")
    for english in (seeds / "items").glob("High*.csv"):  # both orders of the options
        text = english.read_bytes()
        english.write_bytes(text.replace(b"Independent and Resolute", b"Independent and Firm"))
    task_languages = seeds / "mcq_task_languages.csv"
    translations = seeds / "mcq_domain_translations.csv"
    arts = (",Arts & Culture\n", ",Arts and Culture\n")
    for declared, compared, domain in (
        ("xcloze,en\n", ["en"], "Arts & Culture"),
        ("xcloze,en\nxcloze,it\n", ["en", "it"], "Arts and Culture"),
    ):
        task_languages.write_text("task,language\n" + declared, encoding="utf-8")
        text = translations.read_text(encoding="utf-8")
        if domain == "Arts and Culture":
            translations.write_text(text.replace(*arts), encoding="utf-8")
        build_changed(project_copy, incremental)
        with duckdb.connect(str(incremental), read_only=True) as con:
            languages = con.execute(
                "select distinct language from intermediate.int_mcq_answers_normalised order by 1"
            ).fetchall()
            domains = con.execute(
                "select distinct domain from marts.mcq_domain_disagreement_v2 "
                "where domain like 'Arts%'"
            ).fetchall()
            options = con.execute(
                "select distinct option_text from staging.stg_mcq__items "
                "where option_text like 'Independent and %'"
            ).fetchall()
        assert [lang for (lang,) in languages] == compared
        assert domains == [(domain,)]
        assert ("Independent and Firm",) in options and ("Independent and Resolute",) not in options
    # one answer of a run changed again, after the last change that makes every row again:
    # the rater datasets it reaches are computed again, the others kept (compared below)
    text = long_en.read_text(encoding="utf-8")
    answered = text.splitlines()[2]
    long_en.write_text(
        text.replace(answered, answered[:-1] + ("A" if answered[-1] != "A" else "B"), 1),
        encoding="utf-8",
    )
    build_changed(project_copy, incremental)
    # nothing new: nothing runs
    assert build_changed(project_copy, incremental) == []
    # a mart's SQL: it alone (its tests are left out here)
    departures = project_copy / "models" / "marts" / "mcq" / "mcq_language_departures.sql"
    departures.write_text(departures.read_text() + "\n-- a note\n")
    assert build_changed(project_copy, incremental) == ["model.concord.mcq_language_departures"]
    # a Python model's code: it and its descendants, no other
    estimated = departures.parents[2] / "intermediate" / "mcq"
    estimated /= "int_mcq_language_departures_estimated.py"
    estimated.write_text(estimated.read_text() + "\n# a note\n")
    python_model = "model.concord.int_mcq_language_departures_estimated"
    ran = build_changed(project_copy, incremental)
    assert python_model in ran and set(ran) <= descendants(incremental, python_model), ran
    # a var: the node that reads it and its descendants, no other (the builds after keep it)
    binned = "model.concord.int_mcq_calibration_binned"
    given = ["--vars", "{bootstrap_resamples: 200, mcq_calibration_bins: 5}"]
    ran = build_changed(project_copy, incremental, *given)
    assert binned in ran and set(ran) <= descendants(incremental, binned), ran
    # a data test added, the data tests built (until now left out): tests alone run, no model
    (project_copy / "tests" / "dbt" / "mcq" / "assert_mcq_a_new_check.sql").write_text(
        "select * from {{ ref('mcq_language_departures') }} where false\n"
    )
    ran = build_changed(project_copy, incremental, *given, tests=True)
    assert "test.concord.assert_mcq_a_new_check" in ran
    assert ran and all(uid.startswith("test.") for uid in ran), ran
    # one full rebuild of the final inputs: what the incremental builds left (a macro, a
    # file added, one changed, one removed, a run unregistered, a model renamed in the
    # registry, another by an alias, item files unregistered, item files changed, a
    # translation, a language dropped from the task and added again, a mart's SQL, a Python
    # model, a var, a test) is what it makes
    # (in the same copy and landing, the incremental build's database moved aside: the same
    # parse state, parsed once)
    kept = incremental.rename(tmp_path / "incremental.duckdb")
    build_changed(project_copy, incremental, *given, full=True)
    assert_same_tables(kept, incremental)


def test_a_key_answered_twice_is_quarantined_in_both_files_and_recovers_when_one_goes(
    project_copy,
):
    """Two records for one model, run, item and language (here in two files of one run)
    both land in the run's quarantine (stg_mcq__quarantine) and reach dq_quarantine with
    the reason; removing the second file lands the run again, and the first one's record
    is an answer on the next (incremental) build."""
    seeds = project_copy / "seeds" / "mcq"
    sources = seeds / "answer_sources"
    header = "model,run,item_id,language,answer\n"
    (sources / "first.csv").write_text(
        header + "Dup model,base,1,en,A\nDup model,base,2,en,B\n", encoding="utf-8"
    )
    (sources / "second.csv").write_text(header + "Dup model,base,1,en,C\n", encoding="utf-8")
    registry = seeds / "mcq_answer_sources.csv"
    registry.write_text(
        "file,format,model,run,language,presented_option_order,item_key,task_pattern,domain_field\n"
        "first.csv,long,,,,ABCD,,,\nsecond.csv,long,,,,ABCD,,,\n"
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
            "select item_id, chosen_option from intermediate.int_mcq_answers_normalised "
            "where model = 'Dup model' order by all"
        ).fetchall()
    assert quarantined == [
        ("first.csv", 1, f"mcq answer record: {reason}"),
        ("second.csv", 1, f"mcq answer record: {reason}"),
    ]
    assert answers == [("2", "B")]

    (sources / "second.csv").unlink()
    registry.write_text(
        "file,format,model,run,language,presented_option_order,item_key,task_pattern,domain_field\n"
        "first.csv,long,,,,ABCD,,,\n"
    )
    run_dbt(build, project_copy, database)
    with duckdb.connect(str(database), read_only=True) as con:
        answers = con.execute(
            "select item_id, chosen_option from intermediate.int_mcq_answers_normalised "
            "where model = 'Dup model' order by all"
        ).fetchall()
    assert answers == [("1", "A"), ("2", "B")]


def test_a_changed_file_lands_its_run_again_and_only_its_answers_are_read_again(project_copy):
    """The plugin lands before every build: an unchanged landing is not written again, a
    changed wide file replaces its run's folder, and the incremental normalised answers
    take the new version of that file only (the other runs' rows are not inserted again)."""
    database = project_copy / "concord.duckdb"
    build = ["build", "--select", "+int_mcq_answers_normalised", *NO_DATA_TESTS]
    first = run_dbt(build, project_copy, database)
    assert "0 folder(s) unchanged, 23 written or removed" in first.stdout
    again = run_dbt(build, project_copy, database)
    assert "23 folder(s) unchanged, 0 written or removed" in again.stdout
    # every row marked (a column nothing downstream reads): a row read again loses it
    query = (
        "select model, variant, any_value(file_version), bool_and(domain_label like '%#kept'), "
        "max(answer_raw) filter (where item_id = '1' and language = 'en') "
        "from intermediate.int_mcq_answers_normalised group by all order by all"
    )
    with duckdb.connect(str(database)) as con:
        con.execute(
            "update intermediate.int_mcq_answers_normalised set domain_label = domain_label "
            "|| '#kept'"
        )
        before = {(m, r): rest for m, r, *rest in con.execute(query).fetchall()}
    path = project_copy / "seeds" / "mcq" / "answers" / GPT4O
    text = path.read_text(encoding="utf-8-sig")
    header, first_row, rest = text.split("\n", 2)
    cells = first_row.split(",")
    column = header.split(",").index("GPT4o_EN")
    cells[column] = "C" if cells[column] != "C" else "D"
    path.write_text("\n".join([header, ",".join(cells), rest]), encoding="utf-8")
    changed = run_dbt(build, project_copy, database)
    assert "22 folder(s) unchanged, 1 written or removed" in changed.stdout
    assert "replaced  mcq/run_id=gpt-4o--base--" in changed.stdout
    with duckdb.connect(str(database), read_only=True) as con:
        after = {(m, r): rest for m, r, *rest in con.execute(query).fetchall()}
    assert after.keys() == before.keys()
    for key, (version, kept, answer) in after.items():
        if key == ("GPT-4o", "base"):  # read again: a new version, the new answer
            assert version != before[key][0] and not kept and answer == cells[column]
        else:  # not read again
            assert [version, kept, answer] == before[key], key


def test_a_file_the_reader_refuses_stops_dbt_build_in_one_line(project_copy):
    """A long file with a line that is not JSON (a shape problem: the file is not what it
    says) is refused before dbt opens the database, naming file, line and column."""
    sources = project_copy / "seeds" / "mcq" / "answer_sources"
    (sources / "extra.jsonl").write_text(
        json.dumps({"model": "M", "run": "base", "item_id": "1", "language": "en", "answer": "A"})
        + "\n{not json\n",
        encoding="utf-8",
    )
    (project_copy / "seeds" / "mcq" / "mcq_answer_sources.csv").write_text(
        "file,format,model,run,language,presented_option_order,item_key,task_pattern,domain_field\n"
        "extra.jsonl,long,,,,,,,\n"
    )
    result = run_dbt(
        ["build", "--select", "+dq_quarantine"],
        project_copy,
        project_copy / "concord.duckdb",
        check=False,
    )
    assert result.returncode != 0
    assert "extra.jsonl: line 2, column (the line): not a JSON object" in result.stdout
    assert "START sql" not in result.stdout


def test_the_vars_of_a_dbt_call_reach_the_reader(project_copy):
    """mcq_languages given with --vars is the study's for the reader too: the wide files
    land with the languages the call names (their runs land again), and the normalised
    answers follow on an incremental build; the next build without the var lands them all
    again."""
    database = project_copy / "concord.duckdb"
    build = ["build", "--select", "+int_mcq_answers_normalised", *NO_DATA_TESTS]

    def languages() -> set[str]:
        with duckdb.connect(str(database), read_only=True) as con:
            return {
                language
                for (language,) in con.execute(
                    "select distinct language from intermediate.int_mcq_answers_normalised"
                ).fetchall()
            }

    run_dbt(build, project_copy, database)
    assert languages() == {"en", "it", "fa"}
    result = run_dbt([*build, "--vars", "{mcq_languages: [en, it]}"], project_copy, database)
    # the items and the seed files stay
    assert "15 folder(s) unchanged, 8 written or removed" in result.stdout
    assert languages() == {"en", "it"}
    run_dbt(build, project_copy, database)
    assert languages() == {"en", "it", "fa"}


@pytest.mark.warehouse
def test_the_reliability_bins_are_the_definition_and_the_report_shows_them(sources_built, tmp_path):
    """mcq_calibration_bins_v2: per language, LLaMA 3.2's scored items binned by the top
    option's probability (the softmax of the summed log-likelihoods; bin ceil(10 p) − 1),
    transcribed: each bin's n, right answers and mean confidence; their n-weighted gap is
    mcq_accuracy's ECE. The report drawn from the same file shows the harness's table
    (fractions to 4 decimals) and the diagram, one point per run and bin."""
    database, _, llama, _ = sources_built
    with duckdb.connect(str(database), read_only=True) as con:
        bins = con.execute(
            "select language, calibration_bin, n_items, n_correct, mean_confidence, accuracy "
            "from marts.mcq_calibration_bins_v2 where model = 'LLaMA 3.2' and variant = 'base' "
            "and distribution = 'summed' order by language, calibration_bin"
        ).fetchall()
        accuracy = {
            row[0]: row[1:]
            for row in con.execute(
                "select language, expected_calibration_error, accuracy_pct, accuracy_std_error "
                "from marts.mcq_accuracy where model = 'LLaMA 3.2' and variant = 'base'"
            ).fetchall()
        }
        n_points = con.execute(
            "select count(*) from (select distinct run_id, calibration_bin "
            "from marts.mcq_calibration_bins_v2 where distribution = 'summed')"
        ).fetchone()[0]
    for lang in LANGUAGES:
        samples = [r for r in llama if r["language"] == lang and r["answer"] in LETTERS]
        want: dict[int, list[tuple[float, bool]]] = {}
        for r in samples:
            p = softmax(sample_logliks(r["answer"]))
            confidence = max(p)
            top_is_gold = p.index(confidence) == gold_index(int(r["item_id"]) - 1)
            b = min(max(math.ceil(confidence * 10) - 1, 0), 9)
            want.setdefault(b, []).append((confidence, top_is_gold))
        got = [row[1:] for row in bins if row[0] == lang]
        assert [row[0] for row in got] == sorted(want), lang
        for (b, n, n_correct, mean_confidence, share), items in zip(
            got, (want[b] for b in sorted(want)), strict=True
        ):
            assert (n, n_correct) == (len(items), sum(right for _, right in items)), (lang, b)
            assert mean_confidence == pytest.approx(np.mean([c for c, _ in items]), abs=1e-12)
            # one unit (version 2): the share right, 0-1, as the confidence
            assert share == pytest.approx(np.mean([right for _, right in items]), abs=1e-12)
        total = sum(row[1] for row in got)
        gap = sum(n / total * abs(share - conf) for _, n, _, conf, share in got)
        assert gap == pytest.approx(accuracy[lang][0], abs=1e-12), lang

    page = build_report(database, tmp_path / "site").read_text(encoding="utf-8")
    for key in ("mcq-accuracy", "mcq-reliability"):
        start = page.index(f'data-figure="{key}"')
        assert 'data-state="ok"' in page[start : page.index(">", start)], key
    diagram = page[page.index('data-figure="mcq-reliability"') :]
    diagram = diagram[: diagram.index("</figure>")]
    assert diagram.count('class="mark"') == n_points
    table = page[
        page.index('id="accuracy-table"') : page.index(
            "</table>", page.index('id="accuracy-table"')
        )
    ]
    for lang in LANGUAGES:
        acc, stderr = accuracy[lang][1] / 100, accuracy[lang][2] / 100
        assert f"<td>LLaMA 3.2 (base)</td><td>{lang}</td>" in table
        assert f'<td class="n">{acc:.4f}</td><td class="n">{stderr:.4f}</td>' in table
