"""Harness runs beyond lm-eval's four-option tasks: Inspect AI logs (registry format
``inspect``, concord_io.landing.inspect_logs), real logs written by inspect-ai's own
``eval()`` with its offline ``mockllm`` provider (inspect_fixture.py, in a process of its
own), and an lm-eval task of five choices; landed by the reader and built into the marts
(one build for both), every figure against the harness's own results or a recount."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa
from test_landing_reader import SOURCES_HEADER, land, landed, make_project, mcq, refused, write
from test_mcq_answer_sources import gold_index, harness_acc, sample_line, sample_logliks

from concord_io.cli.add import add_inspect
from concord_io.errors import ConcordError
from concord_io.project import copy_project, run_dbt

FIXTURE = Path(__file__).with_name("inspect_fixture.py")
QUIZ = {  # one task per language, eight items: each model's picks, the same golds
    "targets": "ABCDABCD",
    "choices": [4] * 8,
}
#: (model, language) -> its picks in the quiz (one epoch)
QUIZ_PICKS = {
    ("mockllm/alpha-7b", "en"): "ABCDABCA",
    ("mockllm/alpha-7b", "it"): "ABCDABDA",
    ("mockllm/alpha-7b", "fa"): "ABCCABDA",
    ("mockllm/beta-2b", "en"): "BBCDAACD",
    ("mockllm/beta-2b", "it"): "BBCDDACD",
    ("mockllm/beta-2b", "fa"): "BBCDAACB",
}
#: a five-choice task, two epochs reduced by mode (a tie goes to the first epoch's score),
#: and a sample that errored
FIVE = {
    "model": "mockllm/alpha-7b",
    "task": "arc5_en",
    "choices": [5, 5, 5, 5, 5, 4],
    "targets": "EABCDA",
    "picks": ["EABDCB", "EBBCEA"],
    "reducer": "mode",
    "fail": [6],
    "format": "json",
}


#: the errored sample's reason: the log's own message
ERRORED = "sample errored: RuntimeError('the sandbox stopped answering')"


#: outputs that name no option: no ANSWER: line, an empty one, a letter beyond the choices
ODD = {
    "model": "mockllm/gamma-1b",
    "task": "odd_en",
    "choices": [4, 4, 4],
    "targets": "AAA",
    "picks": ["?_Z"],
}


def spec() -> list[dict]:
    quiz = [
        {
            "model": model,
            "task": f"quiz_{language}",
            "picks": [picks],
            "metadata": {"domain": "general"},
            **QUIZ,
        }
        for (model, language), picks in QUIZ_PICKS.items()
    ]
    return [*quiz, FIVE, ODD]


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> list[Path]:
    """The logs of :func:`spec`, in its order (each a .eval but the five-choice task's .json):
    the quiz's six, the five-choice task's, the odd answers'."""
    folder = tmp_path_factory.mktemp("inspect")
    (folder / "spec.json").write_text(json.dumps(spec()))
    env = os.environ | {"XDG_DATA_HOME": str(folder / "data"), "INSPECT_DISPLAY": "none"}
    subprocess.run(
        [sys.executable, FIXTURE, folder / "spec.json", folder / "logs"],
        check=True,
        env=env,
        timeout=600,
    )
    return [Path(p) for p in json.loads((folder / "written.json").read_text())]


def log_results(path: Path) -> tuple[float, float]:
    """The log's own accuracy and stderr (inspect-ai's reader)."""
    from inspect_ai.log import read_eval_log

    (score,) = read_eval_log(str(path)).results.scores
    return score.metrics["accuracy"].value, score.metrics["stderr"].value


def register(project: Path, logs: list[Path], line: str = "inspect,,base,,,,auto,") -> None:
    """The logs copied under the answer sources folder, one registry line for them all."""
    folder = mcq(project) / "answer_sources" / "inspect"
    folder.mkdir(parents=True, exist_ok=True)
    for path in logs:
        shutil.copyfile(path, folder / path.name)
    registry = mcq(project) / "mcq_answer_sources.csv"
    head = registry.read_text() if registry.exists() else SOURCES_HEADER
    names = "*" if len(logs) > 1 else logs[0].name
    registry.write_text(head + f"inspect/{names},{line}\n")


# ----------------------------------------------------------------------------- the reader


def test_each_sample_lands_as_one_answer_keyed_a_to_z_with_its_reduced_epochs(tmp_path, logs):
    """The five-choice log: the choices keyed A to E; two epochs counted once, as the log's
    mode reducer counted them (a reduced C is the gold; an I the wrong letter the epochs
    gave most often, the first epoch's on a tie); the errored sample set aside with the
    error's message; the log's model, version and task; the sample's metadata language
    absent, the task name gives it (quiz_en: en)."""
    project = make_project(tmp_path)
    register(project, [logs[6]])
    land(project)
    runs = landed(project, "runs").query("source_kind == 'inspect'")
    (run,) = runs.itertuples()
    assert (run.model, run.variant, run.harness) == ("mockllm/alpha-7b", "base", "inspect_ai")
    assert run.harness_version == "0.3.285" and run.model_revision is None
    answers = landed(project).query("run_id == @run.run_id").sort_values("item_id")
    got = answers[
        ["task", "item_id", "language", "chosen_option", "gold_option", "n_choices",
         "raw_answer", "invalid_reason"]
    ].values.tolist()  # fmt: skip
    assert got == [
        ["arc5", "1", "en", "E", "E", 5, "E E", None],  # C C
        ["arc5", "2", "en", "A", "A", 5, "A B", None],  # C I: a tie, the first epoch's C
        ["arc5", "3", "en", "B", "B", 5, "B B", None],
        ["arc5", "4", "en", "D", "C", 5, "D C", None],  # I C: the first epoch's I
        ["arc5", "5", "en", "C", "D", 5, "C E", None],  # I I: C and E once each, C first
        ["arc5", "6", "en", None, None, 4, "", ERRORED],
    ]
    assert answers.source_column.unique().tolist() == ["scores.choice"]


def test_an_output_that_names_no_option_lands_with_the_readers_reason(tmp_path, logs):
    """As every reader's invalid answers: an output choice() read no option from (no
    ANSWER: line, a letter beyond the choices) is unrecognised, an empty one empty."""
    project = make_project(tmp_path)
    register(project, [logs[7]])
    land(project)
    answers = landed(project).query("source_column == 'scores.choice'").sort_values("item_id")
    assert answers[["chosen_option", "invalid_reason"]].values.tolist() == [
        [None, "unrecognised"],
        [None, "empty"],
        [None, "unrecognised"],
    ]


def test_an_inspect_line_needs_a_run_and_a_log_scored_by_choice(tmp_path, logs):
    project = make_project(tmp_path)
    register(project, [logs[0]], line="inspect,,,,,,auto,")
    refused(project, "an inspect line needs a run (the log does not say the prompt variant)")
    project = make_project(tmp_path / "two")
    write(mcq(project) / "answer_sources" / "inspect" / "not_a_log.json", '{"eval": 1}\n')
    write(
        mcq(project) / "mcq_answer_sources.csv",
        SOURCES_HEADER + "inspect/not_a_log.json,inspect,,base,,,,,\n",
    )
    refused(project, "inspect/not_a_log.json: not an Inspect AI log inspect-ai can read")


# ---------------------------------------------------------------------- concord add inspect


def test_add_inspect_copies_a_folder_per_model_and_registers_it(tmp_path, logs, capsys,
                                                                 monkeypatch):  # fmt: skip
    """A log folder of two models: each model's logs copied, byte for byte, into a folder
    of its own under one registry line (format inspect, task_pattern auto); its run read as
    the reader will land it and said in one line; the same add again changes nothing;
    another log of a task already there is refused unless --replace; the command prints
    the same lines and refuses in one."""
    from concord_io.cli import main

    project = make_project(tmp_path)
    write(mcq(project) / "mcq_answer_sources.csv", SOURCES_HEADER)
    source = tmp_path / "logs"
    for path in logs[:7]:
        write(source / path.name, path.read_bytes())
    lines = add_inspect(project, source)
    # the order of spec(): alpha's quiz in three languages, beta's, alpha's five-choice task
    for model, mine in (("alpha-7b", [*logs[:3], logs[6]]), ("beta-2b", logs[3:6])):
        folder = mcq(project) / "answer_sources" / f"mockllm-{model}"
        assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in mine)
        assert all((folder / p.name).read_bytes() == p.read_bytes() for p in mine)
    registry = (mcq(project) / "mcq_answer_sources.csv").read_text()
    assert "mockllm-alpha-7b/*,inspect,mockllm/alpha-7b,base,,,,auto," in registry
    assert "mockllm-beta-2b/*,inspect,mockllm/beta-2b,base,,,,auto," in registry
    runs = [line for line in lines if line.startswith("run ")]
    assert len(runs) == 2 and "inspect_ai 0.3.285" in runs[0]
    alpha = next(r for r in runs if "arc5" in r)  # fa: not in the project's mcq_languages
    assert "30 samples, task(s) arc5, quiz, language(s) en, fa, it" in alpha
    assert alpha.endswith("8 set aside (language not one of mcq_languages)")
    assert add_inspect(project, source)[-1] == (
        "nothing added: the same files are already there, and registered"
    )
    land(project)
    assert sorted(landed(project, "runs").model) == ["M", "mockllm/alpha-7b", "mockllm/beta-2b"]

    again = tmp_path / "again"
    write(again / "renamed.eval", logs[0].read_bytes())
    with pytest.raises(ConcordError, match="another harness run of task.s. quiz_en"):
        add_inspect(project, again)
    monkeypatch.chdir(project)
    with pytest.raises(SystemExit) as exit_:
        main(["add", str(again), "--replace"])  # the harness found from the files
    out = capsys.readouterr().out.splitlines()
    removed = [line.split()[1] for line in out if line.startswith("removed ")]
    # the log of the task it brings goes; the model's other tasks' logs stay
    assert exit_.value.code == 0 and removed == [
        f"seeds/mcq/answer_sources/mockllm-alpha-7b/{logs[0].name}"
    ]
    with pytest.raises(SystemExit) as exit_:
        main(["add", "inspect", str(tmp_path / "missing")])
    err = capsys.readouterr().err.splitlines()
    assert exit_.value.code == 2 and "missing: not a folder" in err[0] and len(err) == 2


def test_add_inspect_in_place_registers_a_folder_per_model_and_refuses_two(tmp_path, logs):
    """--in-place: Inspect's log folder of two models is refused (a line per folder could
    not tell them apart); a folder per model is registered where it is, one line per suffix
    of its logs, and lands as the copies do."""
    project = make_project(tmp_path)
    write(mcq(project) / "mcq_answer_sources.csv", SOURCES_HEADER)
    mixed = tmp_path / "logs"
    for path in logs[:7]:
        write(mixed / path.name, path.read_bytes())
    with pytest.raises(ConcordError, match="holds the logs of models mockllm/alpha-7b and "):
        add_inspect(project, mixed, in_place=True)
    for model, mine in (("alpha", [*logs[:3], logs[6]]), ("beta", logs[3:6])):
        for path in mine:
            write(tmp_path / "by_model" / model / path.name, path.read_bytes())
    lines = add_inspect(project, tmp_path / "by_model", in_place=True)
    registered = [line.split()[1] for line in lines if line.startswith("registered ")]
    folder = (tmp_path / "by_model").resolve()
    assert registered == [f"{folder}/alpha/*.eval", f"{folder}/alpha/*.json",
                          f"{folder}/beta/*.eval"]  # fmt: skip
    assert not list((mcq(project) / "answer_sources").rglob("*"))
    land(project)
    runs = landed(project, "runs").query("harness == 'inspect_ai'")
    assert sorted(runs.source_folder) == [f"{folder}/alpha", f"{folder}/beta"]
    copied = make_project(tmp_path / "copied")
    write(mcq(copied) / "mcq_answer_sources.csv", SOURCES_HEADER)
    add_inspect(copied, mixed)
    land(copied)
    columns = ["model", "task", "language", "item_id", "chosen_option", "domain"]
    answers = []
    for each in (project, copied):
        found = landed(each).assign(model=lambda a: a.run_id.str.split("--").str[0])
        rows = found.query("model != 'm'")[columns].astype(str).values.tolist()
        answers.append(sorted(map(tuple, rows)))
    assert len(answers[0]) == 38 and answers[0] == answers[1]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (["a.eval", "results_2025-01-01T00-00-00.json"], "holds lm-eval output"),
        (["notes.txt"], "no lm-eval output (results_<date>.json, samples_*.jsonl) or Inspect"),
    ],
)
def test_concord_add_path_refuses_a_folder_of_both_harnesses_or_neither(
    tmp_path, files, expected, capsys
):
    from concord_io.cli import main

    for name in files:
        write(tmp_path / "out" / name, "{}")
    with pytest.raises(SystemExit) as exit_:
        main(["add", str(tmp_path / "out")])
    err = capsys.readouterr().err.splitlines()
    assert exit_.value.code == 2 and expected in err[0] and len(err) == 2


# ----------------------------------------------------------------------------- the marts

ACCURACY = (
    "select accuracy_pct, accuracy_std_error from marts.mcq_accuracy "
    "where model = ? and task = ? and language = ?"
)


def write_five_choice_logs(project: Path) -> None:
    """An lm-eval five-choice task (ARC-style) in two languages (:data:`FIVE_CHOICE_PICKS`),
    as the harness logs it, registered."""
    folder = project / "seeds" / "mcq" / "answer_sources" / "lm_eval" / "org__five"
    folder.mkdir(parents=True)
    with (project / "seeds" / "mcq" / "mcq_answer_sources.csv").open("a") as registry:
        for lang, picks in FIVE_CHOICE_PICKS.items():
            lines = [sample_line(doc, pick, n_choices=5) for doc, pick in enumerate(picks)]
            log = folder / f"samples_mc5_{lang}_2025-05-05T10-00-00.123456.jsonl"
            log.write_text("\n".join(lines) + "\n", encoding="utf-8")
            registry.write(f"lm_eval/org__five/samples_mc5_{lang}_*.jsonl,lm_eval,Five,base,"
                           f"{lang},,,,\n")  # fmt: skip


@pytest.fixture(scope="module")
def built(tmp_path_factory, logs) -> Path:
    """A project copy with the Inspect logs and an lm-eval five-choice task, its
    cross-lingual marts and the rater datasets' categories built: the database."""
    project = copy_project(tmp_path_factory.mktemp("harnesses") / "project")
    register(project, logs[:7])
    write_five_choice_logs(project)
    database = project / "concord.duckdb"
    run_dbt(
        ["build", "--select", "+path:models/marts/mcq", "+dq_quarantine",
         "+int_rater_categories_declared"],
        project,
        database,
        artifacts=True,  # the semantic manifest, which MetricFlow reads
    )  # fmt: skip
    return database


@pytest.mark.warehouse
def test_inspect_logs_give_the_logs_accuracy_and_agreement_in_the_marts(built, logs):
    """Two models, one task per language in three languages, a five-choice task with two
    epochs and an errored sample: accuracy and its standard error equal each log's own
    results; full agreement over the three languages equals a recount of the picks;
    nothing Inspect scored is quarantined, the errored sample is, with its reason."""
    database = built
    keys = [*QUIZ_PICKS, ("mockllm/alpha-7b", "en")]
    tasks = ["quiz"] * len(QUIZ_PICKS) + ["arc5"]
    with duckdb.connect(str(database), read_only=True) as con:
        got = [
            con.execute(ACCURACY, [model, task, language]).fetchone()
            for (model, language), task in zip(keys, tasks, strict=True)
        ]
        agreement = con.execute(
            "select model, n_languages, n_items, n_full_agreement from "
            "marts.mcq_agreement_summary_v2 where task = 'quiz' order by model"
        ).fetchall()
        quarantined = con.execute(
            "select source, reason from marts.dq_quarantine where source like 'inspect/%'"
        ).fetchall()
    for path, row in zip(logs[:7], got, strict=True):
        accuracy, stderr = log_results(path)
        assert row == pytest.approx((100 * accuracy, 100 * stderr), abs=1e-9), path.name
    recount = []
    for model in ("mockllm/alpha-7b", "mockllm/beta-2b"):
        picks = [QUIZ_PICKS[(model, language)] for language in ("en", "it", "fa")]
        full = sum(len(set(item)) == 1 for item in zip(*picks, strict=True))
        recount.append((model, 3, 8, full))
    assert agreement == recount
    assert [row[3] for row in recount] == [6, 6]  # two items of each model disagree
    assert quarantined == [(f"inspect/{logs[6].name}", f"mcq answer record: {ERRORED}")]


#: a harness's five-choice task (ARC-style) in two languages: each sample's pick
FIVE_CHOICE_PICKS = {"en": "ABCDEEDCBAEEABE", "it": "ABCDEEDCBBEEAAC"}


@pytest.mark.warehouse
def test_a_five_choice_task_gives_the_harness_accuracy_with_every_sample_an_answer(built):
    """Any number of choices: the choices of a five-choice harness task are keyed A to E.
    Nothing is quarantined; accuracy and its standard error equal the harness's own (acc and
    its mean_stderr, lm_eval's code transcribed); option E is counted; the entropy is
    normalised by log2 5; the datasets derived from the task declare five categories."""
    from test_consistency import lm_eval_mean_stderr

    database = built
    with duckdb.connect(str(database), read_only=True) as con:
        accuracy = con.execute(
            "select language, n_items, n_correct, accuracy_pct, accuracy_std_error "
            "from marts.mcq_accuracy where model = 'Five' order by language"
        ).fetchall()
        chose_e = con.execute(
            "select language, n_option from marts.mcq_option_frequency_v2 "
            "where model = 'Five' and option = 'E' order by language"
        ).fetchall()
        entropy = con.execute(
            "select language, entropy_bits, entropy_norm from marts.mcq_choice_entropy_v2 "
            "where model = 'Five' order by language"
        ).fetchall()
        quarantined = con.execute(
            "select count(*) from marts.dq_quarantine where source like '%org__five%'"
        ).fetchone()[0]
        agreement = con.execute(
            "select n_items, n_full_agreement, fleiss_kappa from marts.mcq_agreement_summary_v2 "
            "where model = 'Five'"
        ).fetchall()
        categories = con.execute(
            "select dataset, string_agg(category, '' order by category) "
            "from intermediate.int_rater_categories_declared "
            "where dataset like '%mc5%' group by dataset order by dataset"
        ).fetchall()
    want_accuracy, want_e, want_entropy = [], [], []
    for lang, picks in FIVE_CHOICE_PICKS.items():
        acc = [
            harness_acc(sample_logliks(pick, 5), gold_index(doc, 5))
            for doc, pick in enumerate(picks)
        ]
        want_accuracy.append(
            (lang, len(picks), sum(acc), 100 * np.mean(acc), 100 * lm_eval_mean_stderr(acc))
        )
        want_e.append((lang, picks.count("E")))
        shares = np.array([picks.count(key) for key in "ABCDE"]) / len(picks)
        bits = -sum(p * math.log2(p) for p in shares if p > 0)
        want_entropy.append((lang, bits, bits / math.log2(5)))
    assert accuracy == [pytest.approx(row, abs=1e-9) for row in want_accuracy]
    assert chose_e == want_e
    assert entropy == [pytest.approx(row, abs=1e-9) for row in want_entropy]
    assert quarantined == 0
    # full agreement and Fleiss' kappa (statsmodels) over the two languages, E among them
    en, it = FIVE_CHOICE_PICKS["en"], FIVE_CHOICE_PICKS["it"]
    table, _ = aggregate_raters(np.array([[ord(a), ord(b)] for a, b in zip(en, it, strict=True)]))
    assert agreement == [
        (
            len(en),
            sum(a == b for a, b in zip(en, it, strict=True)),
            pytest.approx(fleiss_kappa(table)),
        )
    ]
    assert categories and all(keys == "ABCDE" for _, keys in categories)


def csv_value(text: str) -> float | None:
    return None if text == "" else float(text)


@pytest.mark.warehouse
def test_metricflow_answers_accuracy_and_calibration_as_the_mart_does(built):
    """The semantic layer's accuracy metrics: per run, task and language the mart's
    accuracy, acc_norm, Brier score and ECE; accuracy pooled over a model's languages as
    correct over graded items (the per-cell Brier and ECE are null there: they do not
    pool); full agreement grouped by the number of languages the task compares."""
    from test_semantic_layer import mf_query

    project = built.parent
    cell = "mcq_accuracy_cell__model,mcq_accuracy_cell__task,mcq_accuracy_cell__language"
    metrics = ("accuracy_pct", "accuracy_norm_pct", "brier_score", "expected_calibration_error")
    rows = mf_query(project, built, ",".join(metrics), cell)
    pooled = mf_query(
        project,
        built,
        "accuracy_pct,brier_score",
        "mcq_accuracy_cell__model,mcq_accuracy_cell__task",
    )
    run = "mcq_model_run__model,mcq_model_run__variant,mcq_model_run__task"
    agreement = mf_query(project, built, "full_agreement_pct", run + ",mcq_model_run__n_languages")
    with duckdb.connect(str(built), read_only=True) as con:
        want = {
            tuple(r[:3]): r[3:]
            for r in con.execute(
                f"select model, task, language, {', '.join(metrics)} from marts.mcq_accuracy "
                "where accuracy_pct is not null"
            ).fetchall()
        }
        want_pooled = dict(
            ((model, task), pct)
            for model, task, pct in con.execute(
                "select model, task, 100.0 * sum(n_correct) / sum(n_items) from marts.mcq_accuracy "
                "where n_items > 0 group by model, task"
            ).fetchall()
        )
        want_agreement = {
            tuple(r[:4]): r[4]
            for r in con.execute(
                "select model, variant, task, n_languages, full_agreement_pct "
                "from marts.mcq_agreement_summary_v2"
            ).fetchall()
        }
    got = {
        tuple(r[c] for c in cell.split(",")): tuple(csv_value(r[m]) for m in metrics)
        for r in rows
        if r["accuracy_pct"] != ""
    }
    assert got.keys() == want.keys() and len(got) >= 7
    for key, values in want.items():
        assert got[key] == pytest.approx(values, abs=1e-9), key
    got_pooled = {
        (r["mcq_accuracy_cell__model"], r["mcq_accuracy_cell__task"]): csv_value(r["accuracy_pct"])
        for r in pooled
        if r["accuracy_pct"] != ""
    }
    assert got_pooled == pytest.approx(want_pooled, abs=1e-9)
    quiz = [r for r in pooled if r["mcq_accuracy_cell__task"] == "quiz"]
    assert quiz and all(r["brier_score"] == "" for r in quiz)  # three languages: no one cell
    got_agreement = {
        tuple(r[c] for c in (*run.split(","), "mcq_model_run__n_languages")): csv_value(
            r["full_agreement_pct"]
        )
        for r in agreement
    }
    assert {(m, v, t, int(n)): pct for (m, v, t, n), pct in got_agreement.items()} == (
        pytest.approx(want_agreement, abs=1e-9)
    )
