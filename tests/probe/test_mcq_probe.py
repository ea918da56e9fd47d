"""python -m probe mcq: a multiple-choice task's items scored as lm-evaluation-harness scores
them, written as its sample logs, and landed by the landing's own lm_eval reader.

A throw-away project (mcq_project: two items in English and Italian, one with two options
and one with four) and the tiny random models, loaded through from_pretrained.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import torch
from mcq_project import MCQ_ITEMS, make_mcq_project
from test_probe_cli import _fails

from concord_io.cli.add import add_lmeval
from concord_io.errors import ConcordError
from concord_io.landing import land, land_mcq
from probe import mcq
from probe.__main__ import main
from probe.modeling import load_model
from probe.runner import run_mcq
from probe.tiny import write_mcq_study

CPU = torch.device("cpu")


def _logs(folder: Path) -> dict[str, list[dict]]:
    """Harness task -> its sample log's records."""
    return {
        path.name.split("_20")[0].removeprefix("samples_"): [
            json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
        ]
        for path in sorted(folder.glob("samples_*.jsonl"))
    }


def _landed(project: Path) -> Path:
    """The project's inputs landed (as `concord land` lands them): the probe scores the
    landed items."""
    landing = project.parent / "landing"
    land(project, landing)
    return landing


def _run(model: Path, project: Path, out: Path, **options):
    options.setdefault("landing_dir", _landed(project))
    return run_mcq(str(model), project=project, out=out, device="cpu", progress=False, **options)


def _import_and_land(project: Path, folder: Path, landing: Path, **options) -> list[str]:
    """What `concord probe mcq --land` does after scoring: `concord add lmeval` of the logs,
    then `concord land`."""
    lines = add_lmeval(project, folder, task_pattern="xcloze_{lang}", **options)
    return lines + land_mcq(project, landing).lines()


@torch.no_grad()
def _naive(model, tokenizer, context: str, continuation: str) -> float:
    """The definition: one forward pass of context + continuation, the continuation's
    tokens being those after the context's in their joint encoding."""
    prompt = tokenizer(context)["input_ids"]
    joint = tokenizer(context + continuation)["input_ids"]
    assert joint[: len(prompt)] == prompt
    log_probs = torch.log_softmax(model(input_ids=torch.tensor([joint])).logits[0].double(), -1)
    return sum(float(log_probs[t - 1, joint[t]]) for t in range(len(prompt), len(joint)))


@pytest.mark.parametrize("name", ["llama_bos", "gpt2"])
def test_option_scores_equal_one_full_forward_pass_each(name, tiny_model_dirs, mcq_project):
    out = mcq_project.parent / "out"
    result = _run(tiny_model_dirs[name], mcq_project, out, batch_size=3)
    assert (result.n_prompts, result.option_counts) == (4, (2, 4))
    model, tokenizer = load_model(str(tiny_model_dirs[name]), CPU, torch.float32)
    logs = _logs(result.folder)
    assert sorted(logs) == ["xcloze_en", "xcloze_it"]
    for records in logs.values():
        assert [r["doc_id"] for r in records] == [0, 1]
        assert [len(r["arguments"]) for r in records] == [2, 4]
        for record in records:
            for i, args in enumerate(record["arguments"].values()):
                assert args["arg_0"] == record["doc"]["question"] + "\nAnswer:"
                assert args["arg_1"] == " " + record["doc"]["choices"][i]
                got = float(record["filtered_resps"][i][0])
                assert record["resps"][i][0][0] == record["filtered_resps"][i][0]
                want = _naive(model, tokenizer, args["arg_0"], args["arg_1"])
                assert abs(got - want) <= 1e-5, (record["doc"], i, got, want)


def test_the_logs_land_through_the_lm_eval_reader(tiny_model_dirs, mcq_project):
    landing = mcq_project.parent / "landing"
    result = _run(
        tiny_model_dirs["llama_bos"], mcq_project, mcq_project.parent / "out",
        template="Q: {question}\nA:",
    )  # fmt: skip
    lines = _import_and_land(mcq_project, result.folder, landing)
    assert any(line.startswith("registered") for line in lines)
    (run,) = sorted((landing / "mcq").glob("run_id=*"))
    runs = pq.read_table(run / "runs.parquet").to_pylist()[0]
    answers = pq.read_table(run / "answers.parquet").to_pandas()
    scores = pq.read_table(run / "option_scores.parquet").to_pandas()
    assert runs["source_kind"] == "lm_eval" and runs["variant"] == "base"
    # the folder's name, never its path, and plainly random weights (probe.tiny's mark)
    assert runs["model"] == "llama_bos (random weights)" and runs["n_fewshot"] == 0
    assert runs["harness_version"].startswith("concord-probe-")
    assert sorted(k for k, _ in runs["task_hashes"]) == ["xcloze_en", "xcloze_it"]
    assert pq.read_table(run / "quarantine.parquet").num_rows == 0
    # every item in every language, with its own options, their keys and texts
    options = scores.groupby(["item_id", "language"]).option_key.apply("".join).to_dict()
    assert options == {("1", "en"): "AB", ("1", "it"): "AB", ("2", "en"): "ABCD",
                       ("2", "it"): "ABCD"}  # fmt: skip
    assert scores.set_index(["item_id", "language", "option_key"]).option_chars[
        ("2", "en", "A")
    ] == len("Red and bold")
    logs = _logs(result.folder)
    for _, row in answers.iterrows():
        record = logs[f"xcloze_{row.language}"][int(row.item_id) - 1]
        lls = [float(r[0]) for r in record["filtered_resps"]]
        assert row.chosen_option == "ABCD"[int(np.argmax(lls))]  # the first highest, as acc
        assert row.task == "xcloze" and row.domain in ("Health", "Art")
        got = scores[(scores.item_id == row.item_id) & (scores.language == row.language)]
        np.testing.assert_array_equal(got.loglik, lls)
    assert len(answers) == 4
    # and the items landed beside them (the same reader read the item files)
    items = pq.read_table(landing / "items" / "task=xcloze" / "items.parquet").to_pandas()
    assert len(items) == 16


def test_a_run_scored_again_with_replace_and_land_replaces_the_landed_one(
    tiny_model_dirs, mcq_project, capsys
):
    """`concord probe mcq --land` (the probe scores, then the logs are registered where
    --out has them and landed), then `--replace --land` (the same model scored again): the
    second harness run replaces the first in the registry and the landing, and nothing is
    ever copied into the study's inputs; without --replace the add says that the folder
    changed since it was registered, and to pass --replace."""
    from concord_io.cli import main as concord
    from concord_io.errors import ConcordError

    landing, out = mcq_project.parent / "landing", mcq_project.parent / "out"
    argv = ["probe", "mcq", "--model", str(tiny_model_dirs["gpt2"]), "--items",
            str(mcq_project), "--landing-dir", str(landing), "--out", str(out),
            "--device", "cpu", "--no-progress", "--land"]  # fmt: skip
    registered = []
    for extra in ([], ["--replace"]):
        with pytest.raises(SystemExit) as exit_:
            concord([*argv, *extra])
        assert exit_.value.code == 0
        registry = mcq_project / "seeds" / "mcq" / "mcq_answer_sources.csv"
        registered.append(registry.read_text().splitlines()[1:])
    (scored,) = out.iterdir()
    assert not list((mcq_project / "seeds" / "mcq" / "answer_sources").glob("*/*"))
    (first,), (second,) = registered
    assert (
        f",{scored.resolve()}," in second
        and first.rpartition(",")[0] == (second.rpartition(",")[0])
    )  # the same folder, registered again with the fingerprint of the files scored again
    assert first != second
    (run,) = (landing / "mcq").glob("run_id=*")
    assert pq.read_table(run / "answers.parquet").num_rows == 4
    newer = _run(tiny_model_dirs["gpt2"], mcq_project, out, replace=True).folder  # not landed
    with pytest.raises(ConcordError) as caught:
        add_lmeval(mcq_project, newer, task_pattern="xcloze_{lang}", in_place=True)
    assert "is registered in place already with other fingerprint" in caught.value.message
    assert "pass --replace" in caught.value.hint


def test_the_results_file_records_model_template_and_options():
    item = mcq.Item("xcloze", "3", "zh-Hant", "Q?", ("A", "B"), ("yes", "no"), "B", None)
    started = __import__("datetime").datetime(2025, 5, 5, 10, 0, 0, 123456)
    run = {"model": "M (ours)", "pretrained": "org/m", "slug": "m-1", "revision": "abc",
           "dtype": "bfloat16", "batch_size": 8, "device": "cuda:0",
           "started_at": started}  # fmt: skip
    files = mcq.harness_files([item], "Q: {question}\nA:", ["A", "B"], [[-2.0, -1.0]], run)
    assert sorted(files) == [
        "results_2025-05-05T10-00-00.123456.json",
        "samples_xcloze_zh_Hant_2025-05-05T10-00-00.123456.jsonl",
    ]
    results = json.loads(files["results_2025-05-05T10-00-00.123456.json"])
    config = results["configs"]["xcloze_zh_Hant"]
    assert config["doc_to_text"] == "Q: {question}\nA:" and config["output_type"] == (
        "multiple_choice"
    )
    assert config["metadata"]["option_order"] == "AB"
    assert results["config"]["model_args"] == {
        "pretrained": "org/m", "dtype": "bfloat16", "revision": "abc"
    }  # fmt: skip
    assert results["model_name"] == "M (ours)"  # the name add lmeval lands the run under
    assert results["n-shot"] == {"xcloze_zh_Hant": 0}
    (record,) = [json.loads(line) for line in files[next(f for f in files if "samples" in f)]
                 .splitlines()]  # fmt: skip
    assert record["doc_id"] == 2 and record["target"] == "1" and record["acc"] == 1.0
    assert record["filtered_resps"] == [["-2.0", None], ["-1.0", None]]
    assert results["results"]["xcloze_zh_Hant"]["acc,none"] == 1.0


# ------------------------------------------------------------------ the command's one lines


def _mcq(model: Path, project: Path, *extra: str) -> list[str]:
    """`python -m probe mcq` on the project's landed items (the landing refused: none)."""
    out, landing = project.parent / "out", project.parent / "landing"
    with contextlib.suppress(ConcordError):
        land(project, landing)
    return ["mcq", "--model", str(model), "--items", str(project), "--out", str(out),
            "--landing-dir", str(landing), "--device", "cpu", "--no-progress",
            *extra]  # fmt: skip


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"template": "{prompt}\nAnswer:"}, "has no {question}"),
        ({"template": "{question}\nAnswer: "}, "ends with white space"),
        ({"it.csv": None}, "no items landed in "),  # the landing refused the registry
        (
            {"en": [["Health", "A nurse who is [ADJ].", "Kind", "", "", ""]]},
            "en.csv row 1 (task xcloze, item 1 (en)): 1 option(s) with text",
        ),
        (
            {"en": [["Health", "A nurse who is [ADJ].", "Kind", "", "Bold", ""]]},
            "option B is blank but a later one has text",
        ),
        ({"task": "xcopa"}, "--task 'xcopa': no item of that task"),
        ({"items": "seeds"}, "not a Concord project folder"),
    ],
)
def test_expected_failures_are_one_line(capsys, tmp_path, tiny_model_dirs, change, expected):
    items = {lang: change.get(lang, rows) for lang, rows in MCQ_ITEMS.items()}
    project = make_mcq_project(tmp_path / "project", items)
    if "it.csv" in change:
        (project / "seeds" / "mcq" / "items" / "it.csv").unlink()
    extra = [f"--{k}={v}" for k, v in change.items() if k in ("template", "task")]
    if "items" in change:
        extra = ["--items", str(project / "seeds")]
    err = _fails(capsys, _mcq(tiny_model_dirs["gpt2"], project, *extra))
    assert expected in err[0], err
    assert not (tmp_path / "out").exists()  # nothing written


@pytest.mark.parametrize(
    ("out", "expected"),
    [
        ("seeds/mcq/answer_sources", "lies in the project's input folder"),
        ("seeds/mcq/answer_sources/probe", "lies in the project's input folder"),
        (".", "holds the project's input folder"),
        ("a-file", "is a file, not a folder"),
    ],
)
def test_an_out_folder_among_the_inputs_or_a_file_is_refused_before_scoring(
    capsys, tmp_path, tiny_model_dirs, out, expected
):
    """--out inside the answer sources folder scored, wrote its logs there and then refused
    them, and the unregistered logs stopped every later landing; --out naming a file
    ended in "unexpected error: FileExistsError". Both refused in one line before the model
    loads, nothing written."""
    project = make_mcq_project(tmp_path / "project", MCQ_ITEMS)
    (project / "a-file").write_text("x")
    before = sorted(p.relative_to(project) for p in project.rglob("*"))
    argv = _mcq(tiny_model_dirs["gpt2"], project)
    argv[argv.index("--out") + 1] = str(project / out)
    err = _fails(capsys, argv)
    assert f"--out {project / out}: {expected}" in err[0], err
    assert sorted(p.relative_to(project) for p in project.rglob("*")) == before


def test_logs_already_written_are_refused_without_replace(capsys, tiny_model_dirs, mcq_project):
    argv = _mcq(tiny_model_dirs["gpt2"], mcq_project)
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "2 items x 2 language(s), 2-4 options each" in printed
    assert "next: concord add lmeval" in printed and "--task-pattern 'xcloze_{lang}'" in printed
    err = _fails(capsys, argv)
    assert "already holds the sample logs of this model" in err[0] and "--replace" in err[1]
    assert main([*argv, "--replace"]) == 0
    (folder,) = (mcq_project.parent / "out").iterdir()
    assert len(list(folder.glob("results_*.json"))) == 1  # the earlier run was replaced


def test_an_item_files_gold_is_the_logs_target_and_lands_as_the_answers_gold(
    tmp_path, tiny_model_dirs
):
    golds = {"en": ["B", "D"], "it": ["B", "A"]}  # item 2's gold differs between languages
    items = {lang: [[*row, golds[lang][i]] for i, row in enumerate(rows)]
             for lang, rows in MCQ_ITEMS.items()}  # fmt: skip
    project = tmp_path / "project"
    write_mcq_study(project, items, with_gold=True)
    landing = tmp_path / "landing"
    result = _run(tiny_model_dirs["llama_bos"], project, tmp_path / "out")
    _import_and_land(project, result.folder, landing)
    logs = _logs(result.folder)
    for lang, keys in golds.items():
        for record, key in zip(logs[f"xcloze_{lang}"], keys, strict=True):
            assert record["target"] == str("ABCD".index(key))
            best = int(np.argmax([float(r[0]) for r in record["filtered_resps"]]))
            assert record["acc"] == float(best == "ABCD".index(key))
    (run,) = sorted((landing / "mcq").glob("run_id=*"))
    answers = pq.read_table(run / "answers.parquet").to_pandas()
    landed = {(a.language, a.item_id): a.gold_option for a in answers.itertuples()}
    assert landed == {(lang, str(i + 1)): key for lang, keys in golds.items()
                      for i, key in enumerate(keys)}  # fmt: skip
