"""``concord add lmeval PATH`` (concord_io.cli.add) and the registry's
``task_pattern``: fake lm-evaluation-harness output folders in tmp_path (a results file and
sample logs in the harness's JSON shape), imported into a throw-away project and landed by
the reader. No dbt."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from test_landing_reader import SOURCES_HEADER, land, landed, make_project, mcq, write

from concord_io.cli.add import add_lmeval
from concord_io.errors import ConcordError
from concord_io.landing.names import check_task_pattern, split_task
from concord_io.project import PROJECT_ROOT

DATE = "2025-05-05T10-00-00.123456"
MODEL = "org/model-1b"
FOLDER = "seeds/mcq/answer_sources/org-model-1b"
LINE = "org-model-1b/samples_*.jsonl,lm_eval,org/model-1b,base,,,,{pattern},,,,"
#: a registry of every declared column: add gives an older one the columns added since
ADDED_HEADER = SOURCES_HEADER.replace("\n", ",task,folder,fingerprint\n")


@pytest.fixture
def project(tmp_path) -> Path:
    return make_project(tmp_path)


def sample(doc_id: int, lls: list[float], texts: list[str] | None = None) -> dict:
    """One line of a harness sample log (``--log_samples``) of a multiple-choice task: the
    harness writes every response as text."""
    texts = texts or [f" {chr(65 + i)}" for i in range(len(lls))]
    return {
        "doc_id": doc_id,
        "doc": {"question": f"q{doc_id}", "choices": [t.strip() for t in texts]},
        "target": 0,
        "arguments": {
            f"gen_args_{i}": {"arg_0": f"q{doc_id}\nAnswer:", "arg_1": t}
            for i, t in enumerate(texts)
        },
        "resps": [[[str(ll), "False"]] for ll in lls],
        "filtered_resps": [[str(ll), "False"] for ll in lls],
        "filter": "none",
        "metrics": ["acc", "acc_norm"],
        "doc_hash": "d",
        "prompt_hash": "p",
        "target_hash": "t",
        "acc": 1.0,
    }


#: harness task -> its samples (two documents, four options)
TWO_LANGUAGES = {
    "belebele_eng_Latn": [
        sample(0, [-3.0, -0.5, -2.0, -4.0], [" Kind", " Calm", " Bold", " Shy"]),
        sample(1, [-1.0, -2.0, -1.0, -9.0]),
    ],
    "belebele_ita_Latn": [
        sample(0, [-1.5, -2.5, -0.25, -3.0], [" Gentile", " Calmo", " Audace", " Timidò"]),
        sample(1, [-4.0, -3.0, -2.0, -1.0]),
    ],
}


def harness_output(
    root: Path,
    logs: dict[str, list[dict] | str],
    *,
    model: str = MODEL,
    date: str = DATE,
    log_samples: bool = True,
    output_type: str | None = "multiple_choice",
) -> Path:
    """What ``lm_eval --output_path root --log_samples`` writes: ``<root>/<model
    sanitized>/results_<date>.json`` and a ``samples_<task>_<date>.jsonl`` per task."""
    folder = root / model.replace("/", "__")
    configs = {
        task: {"task": task, "num_fewshot": 0, "metric_list": [{"metric": "acc"}]}
        | ({"output_type": output_type} if output_type else {})
        for task in logs
    }
    results = {
        "results": {task: {"alias": task, "acc,none": 0.5} for task in logs},
        "group_subtasks": {task: [] for task in logs},
        "configs": configs,
        "versions": {task: 1.0 for task in logs},
        "n-shot": {task: 0 for task in logs},
        "config": {
            "model": "hf",
            "model_args": f"pretrained={model},revision=abc123,dtype=float32",
            "batch_size": 1,
        },
        "git_hash": "0f1e2d3",
        "lm_eval_version": "0.4.9",
        "task_hashes": {task: f"hash-{task}" for task in logs} if log_samples else {},
        "model_source": "hf",
        "model_name": model,
        "model_name_sanitized": model.replace("/", "__"),
    }
    write(folder / f"results_{date}.json", json.dumps(results, indent=2))
    if log_samples:
        for task, samples in logs.items():
            text = (
                samples
                if isinstance(samples, str)
                else "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in samples)
            )
            write(folder / f"samples_{task}_{date}.jsonl", text)
    return root


def registry(project: Path) -> str:
    return (mcq(project) / "mcq_answer_sources.csv").read_bytes().decode("utf-8")


def refused(project: Path, output: Path, *expected: str, **options) -> str:
    """``add`` refused in one line holding ``expected``, with nothing copied or registered."""
    before = registry(project)
    with pytest.raises(ConcordError) as caught:
        add_lmeval(project, output, **options)
    message = caught.value.message
    assert "\n" not in message, message
    for text in expected:
        assert text in message, f"{text!r} not in {message!r}"
    assert registry(project) == before
    assert not list((mcq(project) / "answer_sources").rglob("*")), "a refused add copied files"
    return message


# ---------------------------------------------------------------------------- task names


@pytest.mark.parametrize(
    ("name", "pattern", "expected"),
    [
        ("xcopa_it", "auto", ("xcopa", "it")),
        ("belebele_fra_Latn", "auto", ("belebele", "fr")),  # canonical: Latn is French's
        ("belebele_zho_Hans", "auto", ("belebele", "zh-Hans")),
        ("xwinograd_zh_TW", "auto", ("xwinograd", "zh-TW")),  # TW a region, not Twi
        ("m_mmlu_fa", "auto", ("m_mmlu", "fa")),
        ("global_mmlu_full_en_business", "auto", ("global_mmlu_full_business", "en")),
        ("xcopa_it", "xcopa_{lang}", ("xcopa", "it")),
        ("global_mmlu_en_business", "global_mmlu_{lang}", ("global_mmlu_business", "en")),
        ("arc_it", "arc_{lang}", ("arc", "it")),
        ("it_exams", "{lang}_exams", ("exams", "it")),
        ("pes_x", "{lang}_x", ("x", "pes")),  # an individual language is not its macrolanguage
        # a variant subtag, as probe mcq writes a tag's "-" (ca-ES-valencia)
        ("xcloze_ca_ES_valencia", "auto", ("xcloze", "ca-ES-valencia")),
        ("xcloze_ca_ES_valencia", "xcloze_{lang}", ("xcloze", "ca-ES-valencia")),
        ("xcloze_de_1996", "xcloze_{lang}", ("xcloze", "de-1996")),
        ("xcloze_de_1996_train", "auto", ("xcloze_train", "de-1996")),
        ("xcloze_de_train", "auto", ("xcloze_train", "de")),  # train: no variant
    ],
)
def test_a_task_pattern_gives_the_task_and_the_canonical_language(name, pattern, expected):
    assert split_task(name, pattern, "f.jsonl", "pass --task-pattern") == expected


@pytest.mark.parametrize(
    ("name", "pattern", "expected"),
    [
        ("arc_it", "auto", "holds more than one language tag (arc and it)"),
        ("global_mmlu_full_en_professional_law", "auto", "(en and law)"),
        ("gsm8k", "auto", "task gsm8k has no language tag where task_pattern auto looks"),
        ("global_mmlu_full_en_x", "global_mmlu_{lang}", "no language tag where task_pattern"),
        ("xcopa_it", "copa_{lang}", "no language tag"),
        ("it", "auto", "is only a language"),
    ],
)
def test_a_task_name_without_one_language_where_the_pattern_says_is_refused(
    name, pattern, expected
):
    with pytest.raises(ConcordError) as caught:
        split_task(name, pattern, "f.jsonl", "pass --task-pattern")
    assert caught.value.message.startswith("f.jsonl: ") and expected in caught.value.message
    assert "--task-pattern" in caught.value.hint or "rename" in caught.value.hint


@pytest.mark.parametrize(
    "pattern", ["xcopa", "xcopa_{lang}_{lang}", "xcopa{lang}", "{lang}", "x*_{lang}", ""]
)
def test_a_task_pattern_is_auto_or_a_name_with_lang_once_between_underscores(pattern):
    with pytest.raises(ConcordError, match="is not auto or a task name with"):
        check_task_pattern(pattern, "--task-pattern")


# ------------------------------------------------------------- importing and landing a run


def test_an_imported_run_lands_with_its_provenance_answers_and_option_scores(project, tmp_path):
    output = harness_output(tmp_path / "out", TWO_LANGUAGES)
    lines = add_lmeval(project, output)
    copied = sorted(p.name for p in (project / FOLDER).iterdir())
    assert copied == [
        f"results_{DATE}.json",
        f"samples_belebele_eng_Latn_{DATE}.jsonl",
        f"samples_belebele_ita_Latn_{DATE}.jsonl",
    ]
    for name in copied:  # copies, byte for byte, never links
        copy, original = project / FOLDER / name, output / "org__model-1b" / name
        assert not copy.is_symlink() and copy.read_bytes() == original.read_bytes()
    assert registry(project) == ADDED_HEADER + LINE.format(pattern="auto") + "\n"
    assert lines[:4] == [f"added      {FOLDER}/{name}" for name in copied] + [
        "registered org-model-1b/samples_*.jsonl  (model org/model-1b, run base, task_pattern auto)"
    ]
    assert lines[4].startswith("run        org-model-1b--base--")
    assert "4 samples, task(s) belebele, language(s) en, it; revision abc123" in lines[4]

    land(project)
    runs = landed(project, "runs").query("harness == 'lm_eval'")
    run = runs.iloc[0]
    assert len(runs) == 1 and lines[4].split()[1].rstrip(":") == run.run_id
    assert (run.model, run.model_revision, run.variant, run.harness_version, run.n_fewshot) == (
        MODEL,
        "abc123",
        "base",
        "0.4.9",
        0,
    )
    assert sorted(run.task_hashes) == [
        ("belebele_eng_Latn", "hash-belebele_eng_Latn"),
        ("belebele_ita_Latn", "hash-belebele_ita_Latn"),
    ]
    assert run.source_folder == FOLDER
    answers = landed(project).query("run_id == @run.run_id").sort_values(["language", "item_id"])
    assert answers[
        ["task", "item_id", "language", "raw_answer", "chosen_option", "domain"]
    ].values.tolist() == [
        ["belebele", "1", "en", "B", "B", None],
        ["belebele", "2", "en", "A", "A", None],  # a tie: the first, as the harness's acc
        ["belebele", "1", "it", "C", "C", None],
        ["belebele", "2", "it", "D", "D", None],
    ]
    scores = landed(project, "option_scores").query("run_id == @run.run_id")
    it = scores.query("language == 'it' and item_id == '1'").sort_values("presented_position")
    assert it.option_key.tolist() == ["A", "B", "C", "D"]
    assert it.loglik.tolist() == [-1.5, -2.5, -0.25, -3.0]
    assert it.option_chars.tolist() == [7, 5, 6, 6] and it.option_bytes.tolist() == [7, 5, 6, 7]
    assert len(scores) == 16


def test_task_maps_the_harness_task_onto_a_task_of_the_study(project, tmp_path):
    """--task: the logs land as the study's task, whatever the harness calls it (a harness
    run of the shipped items under its own task name is compared with the shipped models);
    the registry line says so; a task that is not a name is refused before anything."""
    output = harness_output(tmp_path / "out", TWO_LANGUAGES)
    lines = add_lmeval(project, output, task="cloze-mapped")
    assert registry(project).endswith(LINE.format(pattern="auto")[:-2] + "cloze-mapped,,\n")
    assert "task(s) cloze-mapped, language(s) en, it" in lines[4]
    land(project)
    run_id = landed(project, "runs").query("harness == 'lm_eval'").run_id.iloc[0]
    answers, scores = landed(project), landed(project, "option_scores")
    answers = answers[answers.run_id == run_id]
    assert set(answers.task) == {"cloze-mapped"} and len(answers) == 4
    assert set(scores[scores.run_id == run_id].task) == {"cloze-mapped"}
    with pytest.raises(ConcordError, match="--task"):
        add_lmeval(project, output, task="../x", replace=True)


def test_an_explicit_task_pattern_keeps_the_text_after_the_language(project, tmp_path):
    """Global-MMLU's subtasks number their documents from 0 each: the text after the
    language stays part of the task, so two subtasks' items never share an id."""
    logs = {
        f"global_mmlu_{lang}_{subject}": [
            sample(0, [-1.0, -2.0, -3.0, -4.0], [lang, subject, "x", "y"])
        ]
        for lang in ("en", "it")
        for subject in ("business", "stem")
    }
    output = harness_output(tmp_path / "out", logs)
    add_lmeval(project, output, task_pattern="global_mmlu_{lang}")
    assert registry(project).endswith(LINE.format(pattern="global_mmlu_{lang}") + "\n")
    land(project)
    answers = landed(project).query("source_file.str.startswith('org-model-1b/')")
    assert sorted(set(zip(answers.task, answers.language, strict=True))) == [
        ("global_mmlu_business", "en"),
        ("global_mmlu_business", "it"),
        ("global_mmlu_stem", "en"),
        ("global_mmlu_stem", "it"),
    ]
    assert set(answers.item_id) == {"1"} and landed(project, "quarantine").empty


def test_languages_outside_the_study_are_imported_and_said_to_land_in_quarantine(project, tmp_path):
    output = harness_output(
        tmp_path / "out",
        {f"xcopa_{lang}": [sample(0, [-1.0, -2.0], [" a", f" {lang}"])] for lang in ("en", "et")},
    )
    lines = add_lmeval(project, output)
    assert any("language(s) et not in mcq_languages (en, it)" in line for line in lines)
    assert any("1 set aside (language not one of mcq_languages)" in line for line in lines)


def test_any_variant_name_is_imported_and_an_empty_language_list_sets_nothing_aside(
    project, tmp_path
):
    """mcq_languages: [] declares no language: none is outside the study."""
    settings = project / "dbt_project.yml"
    settings.write_text(settings.read_text().replace("[en, it]", "[]"))
    output = harness_output(
        tmp_path / "out",
        {f"xcopa_{lang}": [sample(0, [-1.0, -2.0], [" a", f" {lang}"])] for lang in ("en", "et")},
    )
    lines = add_lmeval(project, output, variant="fewshot-5")
    assert not any("mcq_languages" in line or "set aside" in line for line in lines), lines
    land(project)
    runs = landed(project, "runs").query("harness == 'lm_eval'")
    assert runs.variant.tolist() == ["fewshot-5"]
    assert sorted(landed(project).query("task == 'xcopa'").language) == ["en", "et"]


# ------------------------------------------------------------------ refused, one line each


@pytest.mark.parametrize(
    ("logs", "options", "expected"),
    [
        (
            {"arc_it": [sample(0, [-1.0, -2.0])]},
            {},
            [f"samples_arc_it_{DATE}.jsonl: task arc_it holds more than one language tag"],
        ),
        (
            {"copa": [sample(0, [-1.0, -2.0])]},
            {},
            ["samples_copa_", "has no language tag where task_pattern auto looks"],
        ),
        (
            {"xcopa_it": [sample(0, [-1.0, -2.0])]},
            {"task_pattern": "xnli_{lang}"},
            ["samples_xcopa_it_", "no language tag where task_pattern xnli_{lang} looks"],
        ),
        (
            {"xcopa_en": [sample(0, [-1.0, -2.0])], "xcopa_eng": [sample(0, [-1.0, -2.0])]},
            {},
            [
                f"samples_xcopa_en_{DATE}.jsonl and samples_xcopa_eng_{DATE}.jsonl both give "
                "task xcopa, language en"
            ],
        ),
        (
            {"xcopa_it": [sample(0, [-1.0])]},
            {"variant": "few shot"},
            ["--variant 'few shot' is not a name"],
        ),
        ({"xcopa_it": [sample(0, [-1.0])]}, {"as_folder": "../x"}, ["--as ../x: not a folder"]),
    ],
    ids=[
        "two languages",
        "no language",
        "pattern does not match",
        "one task twice",
        "variant",
        "as",
    ],
)
def test_a_task_name_that_does_not_give_one_task_and_language_is_refused(
    project, tmp_path, logs, options, expected
):
    refused(project, harness_output(tmp_path / "out", logs), *expected, **options)


def test_a_results_file_without_sample_logs_gets_one_line_and_nothing_is_imported(
    project, tmp_path
):
    without = harness_output(tmp_path / "out", TWO_LANGUAGES, log_samples=False)
    refused(
        project,
        without,
        f"org__model-1b/results_{DATE}.json: no sample logs beside it",
        "rerun lm_eval with --log_samples",
    )
    # beside another model's run that has them: a note, and that run is imported
    harness_output(tmp_path / "out", TWO_LANGUAGES, model="org/other")
    lines = add_lmeval(project, without)
    notes = [line for line in lines if line.startswith("note")]
    assert notes == [
        f"note       org__model-1b/results_{DATE}.json: no sample logs beside it (task(s) "
        "belebele_eng_Latn, belebele_ita_Latn); nothing is imported from it: rerun lm_eval "
        "with --log_samples"
    ]
    assert [p.name for p in (mcq(project) / "answer_sources").iterdir()] == ["org-other"]


@pytest.mark.parametrize(
    ("output_type", "log", "expected"),
    [
        (
            "generate_until",
            '{"doc_id": 0, "filtered_resps": ["42"]}\n',
            "output_type generate_until",
        ),
        (None, '{"doc_id": 0, "resps": [["42"]], "filtered_resps": ["42"]}\n', "no per-option"),
    ],
    ids=["output_type", "no log-likelihoods"],
)
def test_the_log_of_a_task_that_is_not_multiple_choice_is_refused_naming_it(
    project, tmp_path, output_type, log, expected
):
    logs = {"gsm8k_it": log, "xcopa_it": [sample(0, [-1.0, -2.0])]}
    output = harness_output(tmp_path / "out", logs, output_type=output_type)
    message = refused(project, output, f"samples_gsm8k_it_{DATE}.jsonl: not a multiple-choice")
    assert expected in message


def test_a_log_the_reader_refuses_is_refused_and_its_copies_are_undone(project, tmp_path):
    bad = sample(1, [-1.0, -2.0])
    bad["filtered_resps"][0][0] = "NaN"
    output = harness_output(tmp_path / "out", {"xcopa_it": [sample(0, [-1.0, -2.0]), bad]})
    refused(project, output, f"samples_xcopa_it_{DATE}.jsonl: line 2", "log-likelihood is NaN")


def test_a_folder_registered_for_another_run_is_refused_and_as_names_another(project, tmp_path):
    output = harness_output(tmp_path / "out", TWO_LANGUAGES)
    add_lmeval(project, output)
    before = registry(project)
    with pytest.raises(ConcordError) as caught:
        add_lmeval(project, output, variant="shuffled")
    assert "org-model-1b/samples_*.jsonl is registered already with run base" in (
        caught.value.message
    )
    assert "--as" in caught.value.hint and registry(project) == before
    lines = add_lmeval(project, output, variant="shuffled", as_folder="org-model-1b-shuffled")
    assert (
        "registered org-model-1b-shuffled/samples_*.jsonl  (model org/model-1b, run shuffled"
        in ("\n".join(lines))
    )
    land(project)
    assert sorted(landed(project, "runs").query("harness == 'lm_eval'").variant) == [
        "base",
        "shuffled",
    ]


# ------------------------------------------------------------------- the same add, again


def test_the_same_add_twice_adds_nothing_and_says_so(project, tmp_path):
    output = harness_output(tmp_path / "out", TWO_LANGUAGES)
    add_lmeval(project, output)
    before = registry(project)
    stamps = {p.name: p.stat().st_mtime_ns for p in (project / FOLDER).iterdir()}
    lines = add_lmeval(project, output)
    assert [line.split()[0] for line in lines[:4]] == ["unchanged"] * 4
    assert all("(the same bytes are already there)" in line for line in lines[:3])
    assert "already registered" in lines[3]
    assert lines[-1] == "nothing added: the same files are already there, and registered"
    assert registry(project) == before
    assert {p.name: p.stat().st_mtime_ns for p in (project / FOLDER).iterdir()} == stamps


def test_a_changed_file_replaces_its_copy_and_says_so(project, tmp_path):
    output = harness_output(tmp_path / "out", TWO_LANGUAGES)
    add_lmeval(project, output)
    land(project)
    changed = {**TWO_LANGUAGES, "belebele_ita_Latn": [sample(0, [-0.1, -2.5, -0.25, -3.0])]}
    harness_output(tmp_path / "out", changed)
    lines = add_lmeval(project, output)
    name = f"samples_belebele_ita_Latn_{DATE}.jsonl"
    assert f"replaced   {FOLDER}/{name}  (the file changed: the copy is replaced)" in lines
    assert (project / FOLDER / name).read_bytes() == (output / "org__model-1b" / name).read_bytes()
    assert sum(line.startswith("unchanged") for line in lines) == 3  # two files, the line
    land(project)
    it = landed(project).query("language == 'it' and source_file.str.startswith('org-')")
    assert it[["item_id", "chosen_option"]].values.tolist() == [["1", "A"]]


def test_a_registry_without_the_later_columns_is_read_and_given_them(project, tmp_path):
    """A registry written before task_pattern and domain_field (declared optional: added in
    0.3.0, their values may be empty) lands as it is, read as empty (an upgrade never stops
    a working project; it was refused naming the columns); add writes it with them, every
    line's cells kept. A column not declared optional is still required."""
    old = "file,format,model,run,language,presented_option_order,item_key\r\n"
    write(mcq(project) / "mcq_answer_sources.csv", old + 'a.csv,long,"M, 2",base,,,\r\n')
    write(mcq(project) / "answer_sources" / "a.csv", "item_id,language,answer\n1,en,A\n")
    land(project)
    assert set(landed(project, "runs").model) == {"M", "M, 2"}
    without_key = old.replace(",item_key", "")
    write(mcq(project) / "mcq_answer_sources.csv", without_key + 'a.csv,long,"M, 2",base,,\r\n')
    with pytest.raises(ConcordError, match="declared column.s. item_key missing"):
        land(project)
    write(mcq(project) / "mcq_answer_sources.csv", old + 'a.csv,long,"M, 2",base,,,\r\n')
    add_lmeval(project, harness_output(tmp_path / "out", TWO_LANGUAGES))
    assert registry(project).split("\r\n") == [
        ADDED_HEADER.strip(),
        'a.csv,long,"M, 2",base,,,,,,,,',
        LINE.format(pattern="auto"),
        "",
    ]
    land(project)
    assert set(landed(project, "runs").model) == {"M", "M, 2", MODEL}


# ---------------------------------------------------------------- the registry on its own


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("x/samples_*.jsonl,lm_eval,M,base,en,,,auto,", "a language or a task_pattern, not both"),
        ("x/samples_*.jsonl,lm_eval,M,base,,,,xcopa,", "task_pattern xcopa is not auto"),
        ("a.csv,long,M,base,,,,auto,", "a.csv: task_pattern is for lm_eval lines"),
        ("a.csv,long,M,base,,,,,subject", "a.csv: domain_field is for lm_eval lines"),
        ("a.csv,long,M,base,,,,,,xcloze,,", "a.csv: task is for lm_eval lines"),
        (
            "samples_*.jsonl,lm_eval,M,base,,,,auto,,,runs/gone,0a1b",
            "samples_*.jsonl in runs/gone: the folder registered in place is not there (moved",
        ),
        (
            "a.csv,long,M,base,,,,,,,seeds/mcq/answer_sources,0a1b",
            "the folder lies in the answer sources folder seeds/mcq/answer_sources",
        ),
        ("a.csv,long,M,base,,,,,,,seeds,", "a line registered in place has a folder and its"),
        ("a.csv,long,M,base,,,,,,,,0a1b", "a line registered in place has a folder and its"),
        ("x/samples_*.jsonl,lm_eval,M,base,,,,auto,doc[x]", "domain_field doc[x] is not a field"),
        (
            'a.csv,long,"M\nN",base,,,,,',
            "mcq_answer_sources: a.csv: model 'M\\nN' is not a model name (blank, or a control",
        ),
    ],
)
def test_a_registry_line_gives_a_language_or_a_task_pattern(project, line, expected):
    header = ADDED_HEADER if line.count(",") == ADDED_HEADER.count(",") else SOURCES_HEADER
    write(mcq(project) / "mcq_answer_sources.csv", header + line + "\n")
    write(mcq(project) / "answer_sources" / "a.csv", "item_id,language,answer\n1,en,A\n")
    with pytest.raises(ConcordError, match=re.escape(expected)):
        land(project)


def test_the_reader_refuses_two_logs_a_pattern_reads_as_one_task_and_language(project, tmp_path):
    harness_output(tmp_path / "out", {"xcopa_it": [sample(0, [-1.0, -2.0])]})
    add_lmeval(project, tmp_path / "out")
    # another harness run's log of the same task, under its own name (other bytes)
    write(
        project / FOLDER / "samples_xcopa_ita_2025-06-06T10-00-00.1.jsonl",
        json.dumps(sample(0, [-2.0, -1.0])) + "\n",
    )
    with pytest.raises(ConcordError) as caught:
        land(project)
    assert "both give task xcopa, language it (task_pattern auto)" in caught.value.message


# ------------------------------------------------------------------------- the command


def test_concord_add_lmeval_prints_a_line_each_and_refuses_in_one_line(
    project, tmp_path, capsys, monkeypatch
):
    from concord_io.cli import main

    monkeypatch.chdir(project)
    output = harness_output(tmp_path / "out", TWO_LANGUAGES)
    with pytest.raises(SystemExit) as exit_:
        # concord add PATH: lm-eval's files make it concord add lmeval PATH
        main(["add", str(output), "--task-pattern", "belebele_{lang}"])
    out = capsys.readouterr().out.splitlines()
    assert exit_.value.code == 0 and out[3].startswith("registered org-model-1b/samples_*.jsonl")
    with pytest.raises(SystemExit) as exit_:
        main(["add", "lmeval", str(tmp_path / "missing")])
    err = capsys.readouterr().err.splitlines()
    assert exit_.value.code == 2 and "missing: not a folder" in err[0] and len(err) == 2


def test_a_samples_doc_domain_is_its_items_domain_unless_the_item_files_say(project, tmp_path):
    """A document's own domain (belebele's, and other harness tasks', ``doc.domain``) lands
    as the item's domain where the item files do not hold the item; the item files' wins
    where they do; a domain that is not text refuses the log, naming the line."""
    logs = {
        task: [
            {**s, "doc": {**s["doc"], "domain": domain}}
            for s, domain in zip(samples, ["Law", " "], strict=True)
        ]
        for task, samples in TWO_LANGUAGES.items()
    }
    add_lmeval(project, harness_output(tmp_path / "out", logs))
    land(project)
    answers = landed(project).query("source_file.str.startswith('org-')")
    got = answers.sort_values(["language", "item_id"])[["language", "item_id", "domain"]]
    # item 2's domain is blank: none, as a sample without one
    assert got.values.tolist() == [["en", "1", "Law"], ["en", "2", None], ["it", "1", "Law"],
                                   ["it", "2", None]]  # fmt: skip
    assert answers.domain_label.tolist().count("Law") == 2
    bad = {"belebele_eng_Latn": [{**TWO_LANGUAGES["belebele_eng_Latn"][0], "doc": {"domain": 3}}]}
    with pytest.raises(
        ConcordError, match=r"line 1, column doc.domain: doc.domain is a number, not text"
    ):
        add_lmeval(project, harness_output(tmp_path / "bad", bad, model="org/other"))


def test_domain_field_names_the_documents_field_that_is_the_items_domain(project, tmp_path):
    """Global MMLU's documents name their domain ``subject`` (and some tasks nest it):
    --domain-field says which field it is; it is written on the registry line, so every
    landing reads it, and a field that is not text refuses the log naming that field."""
    logs = {
        task: [
            {**s, "doc": {**s["doc"], "meta": {"subject": subject}, "domain": "ignored"}}
            for s, subject in zip(samples, ["anatomy", "law"], strict=True)
        ]
        for task, samples in TWO_LANGUAGES.items()
    }
    add_lmeval(project, harness_output(tmp_path / "out", logs), domain_field="meta.subject")
    assert registry(project).endswith(LINE.format(pattern="auto")[:-3] + "meta.subject,,,\n")
    land(project)
    answers = landed(project).query("source_file.str.startswith('org-')")
    got = answers.sort_values(["language", "item_id"])[["language", "item_id", "domain"]]
    assert got.values.tolist() == [["en", "1", "anatomy"], ["en", "2", "law"],
                                   ["it", "1", "anatomy"], ["it", "2", "law"]]  # fmt: skip
    bad = {
        "belebele_eng_Latn": [
            {**TWO_LANGUAGES["belebele_eng_Latn"][0], "doc": {"meta": {"subject": ["a"]}}}
        ]
    }
    with pytest.raises(
        ConcordError,
        match=r"line 1, column doc.meta.subject: doc.meta.subject is a list, not text",
    ):
        add_lmeval(
            project,
            harness_output(tmp_path / "bad", bad, model="org/other"),
            domain_field="meta.subject",
        )


def test_a_domain_field_no_sample_has_is_refused_naming_the_documents_fields(project, tmp_path):
    """--domain-field subjct (for subject) was taken: every answer landed without a domain.
    A field that no sample of the folder has is refused, naming the fields they have."""
    logs = {
        task: [{**s, "doc": {**s["doc"], "subject": "law"}} for s in samples]
        for task, samples in TWO_LANGUAGES.items()
    }
    output = harness_output(tmp_path / "out", logs)
    refused(
        project,
        output,
        "--domain-field subjct: no sample of org__model-1b has doc.subjct (their documents "
        "have choices, question, subject)",
        domain_field="subjct",
    )
    refused(
        project,
        output,
        "no sample of org__model-1b has doc.subject.name",
        domain_field="subject.name",
    )
    add_lmeval(project, output, domain_field="subject")  # the field one sample has is taken


def with_aliases(project: Path, lines: str = "") -> Path:
    """The project with the shipped declaration of the model aliases seed, and its file."""
    sources = Path("models") / "staging" / "models" / "_models__sources.yml"
    write(project / sources, (PROJECT_ROOT / sources).read_text(encoding="utf-8"))
    return write(project / "seeds" / "models" / "model_aliases.csv", "spelling,model\n" + lines)


def test_name_adds_the_alias_the_marts_use_in_the_same_step(project, tmp_path):
    aliases = with_aliases(project, "gpt4o,GPT-4o\n")
    output = harness_output(tmp_path / "out", TWO_LANGUAGES)
    lines = add_lmeval(project, output, name="Model 1B (ours)")
    assert (
        "alias      org/model-1b -> Model 1B (ours)  (seeds/models/model_aliases.csv: the marts' "
        "name)" in lines
    )
    assert aliases.read_text() == "spelling,model\ngpt4o,GPT-4o\norg/model-1b,Model 1B (ours)\n"
    land(project)  # the run keeps the harness's spelling; staging applies the alias
    assert set(landed(project, "runs").query("harness == 'lm_eval'").model) == {MODEL}
    again = add_lmeval(project, output, name="Model 1B (ours)")
    assert not [line for line in again if line.startswith("alias")]
    assert aliases.read_text().count("org/model-1b") == 1


def test_a_model_named_by_a_local_path_is_named_by_its_folder(project, tmp_path):
    aliases = with_aliases(project)
    add_lmeval(project, harness_output(tmp_path / "out", TWO_LANGUAGES, model="/data/ckpt/llama-3"))
    assert aliases.read_text() == "spelling,model\n/data/ckpt/llama-3,llama-3\n"


@pytest.mark.parametrize("model", ["/", "./", "../", "/data/ckpt/.."])
def test_a_local_path_that_gives_no_folder_name_is_refused_suggesting_name(
    project, tmp_path, model
):
    """A results file whose model is `/` or ends in `..` gave the alias an empty name or `..`
    (the marts' name for the model); refused naming the results file and --name."""
    with_aliases(project)
    output = harness_output(tmp_path / "out", TWO_LANGUAGES, model=model)
    results = next(output.rglob("results_*.json")).relative_to(output).as_posix()
    message = refused(project, output, f"{results}: model {model!r} is a local path")
    assert message.endswith(f"whose folder gives no name ({Path(model).name!r})")
    with pytest.raises(ConcordError) as caught:
        add_lmeval(project, output)
    assert caught.value.hint.startswith("pass --name with the name the marts should show")


def test_a_model_name_the_registry_line_cannot_carry_is_refused(project, tmp_path):
    """The harness's name for the model goes on the registry line: one with a line break
    was carried there (and into every mart), while --name refuses the same name."""
    output = harness_output(tmp_path / "out", TWO_LANGUAGES, model="org/model\n1b")
    refused(
        project,
        output,
        "mcq_answer_sources: org-model-1b/samples_*.jsonl: model 'org/model\\n1b' is not a "
        "model name (blank, or a control character)",
    )


@pytest.mark.parametrize(
    ("held", "name", "expected"),
    [
        ("org/model-1b,Other\n", "Mine", "org/model-1b is already an alias of Other, not Mine"),
        ("mine,Mine\n", "mine", "--name mine: is itself a spelling in seeds/models/model_alias"),
        ("", " ", "--name ' ' is not a model name"),
    ],
)
def test_a_name_that_would_rename_another_model_or_chain_is_refused(
    project, tmp_path, held, name, expected
):
    aliases = with_aliases(project, held)
    before = aliases.read_bytes()
    refused(project, harness_output(tmp_path / "out", TWO_LANGUAGES), expected, name=name)
    assert aliases.read_bytes() == before
    assert not (project / FOLDER).exists()  # nothing copied


def test_languages_declares_the_tasks_languages_and_its_hint_is_followed(project, tmp_path):
    """With no mcq_languages override, a task's languages are its own: --languages writes
    them to mcq_task_languages.csv; a later log in another language gets a note naming the
    command that declares it, and running that command leaves no note."""
    settings = project / "dbt_project.yml"
    settings.write_text(settings.read_text().replace("[en, it]", "[]"))
    seed = mcq(project) / "mcq_task_languages.csv"
    two = {f"xcopa_{lang}": [sample(0, [-1.0, -2.0], [" a", f" {lang}"])] for lang in ("en", "it")}
    lines = add_lmeval(project, harness_output(tmp_path / "one", two), languages=["it", "EN"])
    assert "languages  task xcopa compares en, it  (seeds/mcq/mcq_task_languages.csv)" in lines
    assert seed.read_text() == "task,language\nxcopa,en\nxcopa,it\n"

    three = {**two, "xcopa_et": [sample(0, [-1.0, -2.0], [" a", " et"])]}
    output = harness_output(tmp_path / "two", three, model="org/model-2b")
    lines = add_lmeval(project, output)
    (note,) = [line for line in lines if line.startswith("note")]
    assert note == (
        "note       task xcopa: language(s) et not among its languages (en, it, declared by "
        "seeds/mcq/mcq_task_languages.csv): the build quarantines their answers (to compare "
        "them: concord add lmeval PATH --languages en,et,it --replace-languages)"
    )
    hinted = note.rsplit("--languages ", 1)[1].split(" ")[0].split(",")
    lines = add_lmeval(project, output, languages=hinted, replace_languages=True)
    assert not [line for line in lines if line.startswith("note")], lines
    assert seed.read_text() == "task,language\nxcopa,en\nxcopa,et\nxcopa,it\n"


def test_add_reads_the_task_languages_and_aliases_as_the_reader_lands_them(project, tmp_path):
    """`EN` and `IT` in mcq_task_languages are en and it, as the build reads them: add says
    nothing of languages outside the task's; an alias spelt with a blank around it is kept
    as written when add appends its own (the build compares spellings exactly)."""
    settings = project / "dbt_project.yml"
    settings.write_text(settings.read_text().replace("[en, it]", "[]"))
    seed = mcq(project) / "mcq_task_languages.csv"
    seed.write_text("task,language\nxcopa,EN\nxcopa,IT\n")
    aliases = with_aliases(project, " gpt4o,GPT-4o\n")
    logs = {f"xcopa_{lang}": [sample(0, [-1.0, -2.0], [" a", f" {lang}"])] for lang in ("en", "it")}
    lines = add_lmeval(project, harness_output(tmp_path / "out", logs), name="Ours")
    assert not [line for line in lines if line.startswith("note")], lines
    assert aliases.read_text() == "spelling,model\n gpt4o,GPT-4o\norg/model-1b,Ours\n"


@pytest.mark.parametrize(
    ("tasks", "declared_by"),
    [(("xcopa_en", "xcopa_it"), "seeds/mcq/mcq_task_languages.csv"),
     (("xcloze_en", "xcloze_it"), "its item files")],
    ids=["declared by an earlier --languages", "the item files' task"],
)  # fmt: skip
def test_languages_that_would_change_a_tasks_declared_ones_need_replace_languages(
    project, tmp_path, tasks, declared_by, capsys, monkeypatch
):
    """A task's languages are every run's: a second --languages that differs changed them
    for the runs already there (the item files' task: the wide files' runs too), without a
    word. It is refused naming the languages the task compares and where they are
    declared, unless --replace-languages says so."""
    settings = project / "dbt_project.yml"
    settings.write_text(settings.read_text().replace("[en, it]", "[]"))
    seed = mcq(project) / "mcq_task_languages.csv"
    # each log its own bytes, as a harness writes them (the option texts in its language)
    logs = {task: [sample(0, [-1.0, -2.0], [" a", f" {task}"])] for task in tasks}
    if declared_by != "its item files":
        add_lmeval(project, harness_output(tmp_path / "one", logs), languages=["en", "it"])
    before = {path: path.read_bytes() for path in (seed, mcq(project) / "mcq_answer_sources.csv")}
    task = tasks[0].split("_")[0]
    output = harness_output(tmp_path / "two", logs, model="org/model-2b")
    with pytest.raises(ConcordError) as caught:
        add_lmeval(project, output, languages=["en"])
    assert caught.value.message == (
        f"--languages en: task {task} compares en, it for every run (declared by "
        f"{declared_by}); this add would change that"
    )
    assert caught.value.hint.startswith("pass --replace-languages to compare task")
    assert {path: path.read_bytes() for path in before} == before
    assert not (mcq(project) / "answer_sources" / "org-model-2b").exists()  # nothing copied
    from concord_io.cli import main

    monkeypatch.chdir(project)
    with pytest.raises(SystemExit) as exit_:
        main(["add", "lmeval", str(output), "--languages", "en", "--replace-languages"])
    assert exit_.value.code == 0
    assert (
        f"languages  task {task} compares en  (seeds/mcq/mcq_task_languages.csv; was en, it)"
        in capsys.readouterr().out.splitlines()
    )
    assert seed.read_text() == f"task,language\n{task},en\n"


def test_languages_under_the_mcq_languages_override_is_not_written(project, tmp_path):
    """mcq_languages (here [en, it]) overrides every task's languages: --languages says so
    and writes nothing."""
    logs = {f"xcopa_{lang}": [sample(0, [-1.0, -2.0], [" a", f" {lang}"])] for lang in ("en", "it")}
    lines = add_lmeval(project, harness_output(tmp_path / "out", logs), languages=["en", "it"])
    assert any("--languages is not written: mcq_languages in dbt_project.yml" in x for x in lines)
    assert (mcq(project) / "mcq_task_languages.csv").read_text() == "task,language\n"


def test_languages_naming_no_valid_tag_is_refused_before_anything_is_copied(project, tmp_path):
    logs = {"xcopa_en": [sample(0, [-1.0, -2.0])]}
    with pytest.raises(ConcordError, match=r"--languages: 'english!' is not a valid language tag"):
        add_lmeval(project, harness_output(tmp_path / "out", logs), languages=["english!"])
    assert not (mcq(project) / "answer_sources" / "org-model-1b").exists()


def test_a_sample_log_that_is_a_link_to_a_fifo_is_named_as_what_it_is(project, tmp_path):
    """A harness folder's sample log that links to a FIFO is refused as a FIFO before a
    byte is read (it was called an orphan: "no results_<date>.json ... beside it")."""
    output = harness_output(tmp_path / "out", TWO_LANGUAGES)
    (log,) = (output / "org__model-1b").glob("samples_belebele_eng_Latn_*.jsonl")
    log.unlink()
    os.mkfifo(tmp_path / "pipe")
    log.symlink_to(tmp_path / "pipe")
    refused(project, output, f"org__model-1b/{log.name}: is a FIFO", "not a regular file")


def test_a_variant_one_typo_from_a_known_one_is_refused_unless_new(project, tmp_path):
    """`--variant shufled` started a variant of its own (compared with no baseline run),
    though the help said "base or shuffled": refused naming the nearest, unless
    --new-variant says a new one is meant; a name far from any is a new variant."""
    output = harness_output(tmp_path / "out", TWO_LANGUAGES)
    message = refused(project, output, "--variant shufled: no run of the study has it; did you "
                      "mean shuffled?", variant="shufled")  # fmt: skip
    assert message.endswith("did you mean shuffled?")
    lines = add_lmeval(project, output, variant="shufled", new_variant=True)
    assert any(line.startswith("registered") and "run shufled" in line for line in lines)
    other = harness_output(tmp_path / "other", TWO_LANGUAGES, model="org/other")
    assert any("run fewshot-5" in line for line in add_lmeval(project, other, variant="fewshot-5"))


def test_a_harness_run_added_then_removed_leaves_the_study_as_before(
    project, tmp_path, monkeypatch
):
    """`concord add lmeval` then `concord remove` of its run: the answer sources line goes,
    the copied logs and results file move out of the inputs (or are deleted), the run's
    landed folder goes; the wide file's run stays."""
    from concord_io.cli.add import remove_run

    monkeypatch.setenv("CONCORD_LANDING_DIR", str(project.parent / "landing"))
    monkeypatch.setenv("CONCORD_DB_PATH", str(tmp_path / "warehouse" / "concord.duckdb"))
    write(mcq(project) / "mcq_answer_sources.csv", ADDED_HEADER)  # every declared column
    before = registry(project)
    add_lmeval(project, harness_output(tmp_path / "out", TWO_LANGUAGES))
    land(project)
    (run_id,) = set(landed(project, "runs").query("harness == 'lm_eval'").run_id)
    lines = remove_run(project, run_id, delete_files=True)
    assert lines[0] == "unregistered mcq_answer_sources line org-model-1b/samples_*.jsonl"
    assert sum(line.startswith("deleted      seeds/mcq/answer_sources/org-model-1b/")
               for line in lines) == 3  # fmt: skip
    assert f"removed   mcq/run_id={run_id}  no longer registered" in lines
    assert registry(project) == before
    assert not (mcq(project) / "answer_sources" / "org-model-1b").exists()
    assert set(landed(project, "runs").source_kind) == {"wide_csv"}


# ------------------------------------------------------------------- registered in place


def test_in_place_registers_the_folder_where_it_is_and_refuses_it_moved_or_changed(
    project, tmp_path, monkeypatch
):
    """--in-place: nothing is copied; the registry names the harness folder and the
    fingerprint of its files, and the run lands from there as a copy would. A changed file
    or a moved folder is refused by name at the next landing, until the folder is
    registered as it is (--replace); remove keeps the user's files."""
    from concord_io.cli.add import remove_run

    monkeypatch.setenv("CONCORD_LANDING_DIR", str(project.parent / "landing"))
    monkeypatch.setenv("CONCORD_DB_PATH", str(tmp_path / "warehouse" / "concord.duckdb"))
    folder = harness_output(tmp_path / "out", TWO_LANGUAGES) / "org__model-1b"
    lines = add_lmeval(project, folder.parent, in_place=True)
    assert not list((mcq(project) / "answer_sources").rglob("*")), "in place copies nothing"
    header, line = registry(project).splitlines()
    assert header + "\n" == ADDED_HEADER
    cells = line.split(",")
    assert cells[1:-2] == LINE.format(pattern="auto").split(",")[1:-2]
    assert cells[0] == "samples_*.jsonl" and cells[-2] == str(folder.resolve())
    assert re.fullmatch("[0-9a-f]{64}", cells[-1])
    assert lines[0] == (
        f"registered {folder.resolve()}/samples_*.jsonl  (in place: nothing copied; model "
        f"{MODEL}, run base)"
    )
    assert add_lmeval(project, folder.parent, in_place=True)[-1].startswith("nothing added")

    land(project)
    (run,) = landed(project, "runs").query("harness == 'lm_eval'").itertuples()
    assert run.source_folder == str(folder.resolve())
    answers = landed(project).query("run_id == @run.run_id").sort_values(["language", "item_id"])
    assert answers[["item_id", "language", "chosen_option"]].values.tolist() == [
        ["1", "en", "B"], ["2", "en", "A"], ["1", "it", "C"], ["2", "it", "D"],
    ]  # fmt: skip

    log = folder / f"samples_belebele_ita_Latn_{DATE}.jsonl"
    log.write_text(log.read_text().replace('"-4.0"', '"-0.1"'))  # item 2 in it: now A
    where = f"mcq_answer_sources: {folder.resolve()} (registered in place) changed since"
    with pytest.raises(ConcordError, match=re.escape(where)):
        land(project)
    with pytest.raises(ConcordError, match="registered in place already with other fingerprint"):
        add_lmeval(project, folder.parent, in_place=True)
    assert add_lmeval(project, folder.parent, in_place=True, replace=True)[0].startswith(
        "registered "
    )
    land(project)
    it_2 = "run_id == @run.run_id and language == 'it' and item_id == '2'"
    chosen = landed(project).query(it_2).chosen_option
    assert chosen.tolist() == ["A"]

    moved = folder.rename(tmp_path / "moved")
    with pytest.raises(ConcordError, match=re.escape("is not there (moved or deleted)")):
        land(project)
    with pytest.raises(ConcordError, match="variant base is registered in place already from "):
        add_lmeval(project, moved, in_place=True)
    lines = add_lmeval(project, moved, in_place=True, replace=True)
    assert f"replaced   {folder.resolve()}/samples_*.jsonl  (--replace)" in lines
    land(project)
    (run,) = landed(project, "runs").query("harness == 'lm_eval'").itertuples()
    assert run.source_folder == str(moved.resolve())

    lines = remove_run(project, run.run_id, delete_files=True)
    assert lines[0].startswith(f"kept         {moved.resolve()}  (registered in place")
    assert registry(project) == ADDED_HEADER
    assert sorted(p.name for p in moved.iterdir()) == sorted(
        [f"results_{DATE}.json", log.name, log.name.replace("ita", "eng")]
    )
    assert set(landed(project, "runs").source_kind) == {"wide_csv"}


def test_in_place_and_as_are_refused_together(project, tmp_path):
    output = harness_output(tmp_path / "out", TWO_LANGUAGES)
    refused(project, output, "--in-place copies nothing", in_place=True, as_folder="x")
