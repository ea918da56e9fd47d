"""``python -m probe mcq``: a cross-lingual multiple-choice task's items scored with a causal
LM as lm-evaluation-harness scores multiple choice, written as the harness's sample logs.

For each item and language the prompt is the template with the item's question in place of
``{question}``; each option is a continuation, the harness's target delimiter (one space)
then the option's text, scored as the sum of its token log-probabilities after the prompt.
The requests, batching, shared-prefix check and torchrun sharding are the name probe's
(:func:`probe.runner.run_mcq`); an item has its own options, two or more. This module holds
what needs no torch: the items, the template, the logs and their folder.

The items are the project's landed items (``<landing>/items/task=<task>/items.parquet``,
which ``concord land`` writes after its reader has checked the item files, their registry
and the domain translations), in the study's option order (``mcq_options``), an option
whose text is blank being one the item does not have. The probe never imports the
warehouse (``concord_io``): both stand on ``concord_common``, and ``concord probe mcq``
lands the inputs first, and with ``--land`` imports and lands the logs after.

The output is what ``lm_eval --log_samples --output_path OUT`` writes for one model, so the
landing's ``lm_eval`` reader takes it unchanged (docs/landing.md):
``OUT/<model slug>/samples_<task>_<language>_<date>.jsonl`` (one line per item: ``doc_id``
= item id - 1, ``arguments``, ``resps`` and ``filtered_resps`` with each option's
log-likelihood as text) and ``results_<date>.json`` (``config.model_args`` with the
revision, ``n-shot``, ``task_hashes``, and each task's ``configs`` with the template as
``doc_to_text`` and the option order). The folder is written whole or not at all.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import partial
from importlib import metadata
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from concord_common import folders, project_dir
from probe.errors import ProbeError, inside, printable

QUESTION = "{question}"
#: The study's items are statements with the blank marked in their own language ("A
#: teacher who is [ADJ and ADJ] can ..."), not questions: the harness's MCQ template
#: ("Question: {question}\nAnswer:") less its "Question: " label, so the only words the
#: template adds to every language are the harness's answer slot.
DEFAULT_TEMPLATE = QUESTION + "\nAnswer:"
#: The harness's target_delimiter: each continuation is " " + the option's text.
TARGET_DELIMITER = " "
#: What the sample logs record as the harness's version (the probe wrote them, not lm_eval).
HARNESS = "concord-probe"
#: Bumped when the logs say something differently (the task's "version" in the results).
LOG_FORMAT = 1


@dataclass(frozen=True)
class Item:
    """One item in one language, its options in the study's order."""

    task: str
    item_id: str
    language: str
    question: str
    option_keys: tuple[str, ...]
    option_texts: tuple[str, ...]
    gold: str | None
    domain: str | None

    @property
    def name(self) -> str:
        return f"task {self.task}, item {self.item_id} ({self.language})"

    @property
    def harness_task(self) -> str:
        """``<task>_<language>``, the language as harness task names write it (``zh_Hant``);
        the reader's task pattern ``<task>_{lang}`` reads it back."""
        return f"{self.task}_{self.language.replace('-', '_')}"


def check_template(template: str) -> str:
    if QUESTION not in template:
        raise ProbeError(
            f"--template {template!r} has no {QUESTION}",
            hint=f"write where the item's question goes, e.g. {DEFAULT_TEMPLATE!r}",
        )
    if template != template.rstrip():
        raise ProbeError(
            f"--template {template!r} ends with white space",
            hint="the space before each option is the harness's delimiter: end the template "
            "with the answer slot itself (…Answer:)",
        )
    return template


def render(template: str, question: str) -> str:
    return template.replace(QUESTION, question)


def landed_items(landing: Path) -> pa.Table:
    """Every task's landed items (``<landing>/items/task=*/items.parquet``, the reader's
    placeholder left out); refused in one line where none are landed."""
    files = sorted(
        path / "items.parquet"
        for path in (landing / "items").glob("task=*")
        if path.name != "task=_empty" and (path / "items.parquet").is_file()
    )
    if not files:
        raise ProbeError(
            f"no items landed in {landing / 'items'}: the item files are read and checked "
            "by the warehouse's reader first",
            hint="run `concord land` (or `concord probe mcq`, which lands first), or pass "
            "--landing-dir where they are landed",
        )
    return pa.concat_tables(pq.read_table(path) for path in files)


def items_from_table(table, options: list[str], task: str | None) -> list[Item]:
    """The items of ``task`` (default: the table's one task), one per item and language, in
    the table's order, each with its options in the order of ``options`` (``mcq_options``).
    A blank option text is an option the item does not have (an item file has a column per
    option key); an item's options are the first keys, at least two."""
    rows = table.to_pylist()
    tasks = sorted({row["task"] for row in rows})
    if task is None:
        if len(tasks) != 1:
            raise ProbeError(
                f"the item files hold tasks {', '.join(tasks) or '(none)'}: which to score?",
                hint="pass --task",
            )
        task = tasks[0]
    elif task not in tasks:
        raise ProbeError(
            f"--task {task!r}: no item of that task (the item files hold "
            f"{', '.join(tasks) or 'none'})",
            hint="pass one of those, or register the task's item files in mcq_item_files.csv",
        )
    grouped: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        if row["task"] == task:
            grouped.setdefault((row["item_id"], row["language"]), []).append(row)
    position = {key: i for i, key in enumerate(options)}
    items = []
    for (item_id, language), option_rows in grouped.items():
        first = option_rows[0]
        ordered = sorted(option_rows, key=lambda r: position.get(r["option_key"], len(options)))
        present = [r for r in ordered if r["option_text"].strip()]
        item = Item(
            task, item_id, language, first["question"],
            tuple(r["option_key"] for r in present), tuple(r["option_text"] for r in present),
            first["gold"], first["domain"],
        )  # fmt: skip
        where = f"{first['source_file']} row {first['source_row']} ({item.name})"
        if len(present) < 2:
            raise ProbeError(
                f"{where}: {len(present)} option(s) with text; a multiple-choice item needs two "
                "or more",
                hint="fill in its options, or remove the item from the item files",
            )
        keys = "".join(item.option_keys)
        if keys != "".join(options[: len(keys)]):
            gap = next(key for key, have in zip(options, keys, strict=False) if key != have)
            raise ProbeError(
                f"{where}: option {gap} is blank but a later one has text; a sample log "
                f"names options by position ({''.join(options)})",
                hint="an item with fewer options leaves its last option columns blank",
            )
        if item.gold is not None and item.gold not in item.option_keys:
            raise ProbeError(
                f"{where}: its gold option {item.gold} is not one of its options {keys}",
                hint="correct the gold key, or fill in that option",
            )
        doc_id(item)  # refused now, not after the scoring
        items.append(item)
    return items


def prompts_and_options(items: list[Item], template: str) -> tuple[list[str], list[list[str]]]:
    """Each item's prompt, and its options as the continuations the harness scores."""
    prompts = [render(template, item.question) for item in items]
    return prompts, [[TARGET_DELIMITER + text for text in item.option_texts] for item in items]


def load_items(project: Path, landing: Path, task: str | None) -> tuple[list[Item], list[str]]:
    """The items of ``task`` landed in ``landing``, and the study's option keys (the
    project's ``mcq_options``)."""
    if not (project / project_dir.PROJECT_FILE).is_file():
        raise ProbeError(
            f"--items {str(project)!r}: not a Concord project folder (no dbt_project.yml)",
            hint="give the project whose study's items are landed",
        )
    options = [str(key) for key in project_dir.project_vars(project).get("mcq_options") or []]
    if not options:
        raise ProbeError(
            f"{project}: no mcq_options in dbt_project.yml's vars",
            hint="give the project whose study the items are (--items)",
        )
    return items_from_table(landed_items(landing), options, task), options


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _version() -> str:
    try:
        return metadata.version("concord")
    except metadata.PackageNotFoundError:
        return "unknown"


def doc_id(item: Item) -> int:
    """The harness numbers documents from 0, the reader items from 1 (docs/landing.md)."""
    if not (item.item_id.isascii() and item.item_id.isdigit() and item.item_id[0] != "0"):
        raise ProbeError(
            f"{item.name}: item id {item.item_id!r} is not a positive whole number",
            hint="the sample logs number documents as the harness does: item id - 1",
        )
    return int(item.item_id) - 1


def sample(item: Item, prompt: str, logliks: list[float]) -> dict:
    """One line of a harness sample log (``--log_samples``) of a multiple-choice task, as the
    harness writes it: responses as text, ``(loglikelihood, is_greedy)`` per option
    (is_greedy is not computed: null)."""
    doc = {
        "task": item.task,
        "item_id": item.item_id,
        "language": item.language,
        "question": item.question,
        "option_keys": list(item.option_keys),
        "choices": list(item.option_texts),
        "gold": item.gold,
        "domain": item.domain,
    }
    target = None if item.gold is None else item.option_keys.index(item.gold)
    record = {
        "doc_id": doc_id(item),
        "doc": doc,
        "arguments": {
            f"gen_args_{i}": {"arg_0": prompt, "arg_1": TARGET_DELIMITER + text}
            for i, text in enumerate(item.option_texts)
        },
        "resps": [[[str(ll), None]] for ll in logliks],
        "filtered_resps": [[str(ll), None] for ll in logliks],
        "filter": "none",
        "metrics": ["acc"] if target is not None else [],
        "doc_hash": _hash(json.dumps(doc, indent=2, ensure_ascii=False)),
        "prompt_hash": _hash(prompt),
    }
    if target is not None:  # the harness's acc: the first option with the highest score
        # (no gold: no target, which the reader lands as no gold, never as a wrong one)
        record |= {"target": str(target), "target_hash": _hash(str(target))}
        record["acc"] = float(int(np.argmax(logliks)) == target)
    return record


def harness_files(
    items: list[Item], template: str, options: list[str], logliks: list[list[float]], run: dict
) -> dict[str, str]:
    """File name -> text of one harness run: a sample log per task and language, and the
    results file that names them all."""
    date = run["started_at"].strftime("%Y-%m-%dT%H-%M-%S.%f")  # the harness's date_id
    logs: dict[str, list[dict]] = {}
    for item, scores in zip(items, logliks, strict=True):
        logs.setdefault(item.harness_task, []).append(
            sample(item, render(template, item.question), scores)
        )
    files, configs, hashes, accuracy = {}, {}, {}, {}
    for task, records in logs.items():
        records.sort(key=lambda r: r["doc_id"])
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
        files[f"samples_{task}_{date}.jsonl"] = text
        hashes[task] = _hash(template + "\n" + text)  # what the model saw, and its answers
        first = records[0]["doc"]
        configs[task] = {
            "task": task,
            "tag": [first["task"]],
            "output_type": "multiple_choice",
            "num_fewshot": 0,
            "doc_to_text": template,
            "doc_to_choice": "{{choices}}",
            "doc_to_target": "{{gold}}",
            "target_delimiter": TARGET_DELIMITER,
            "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
            "metadata": {
                "version": LOG_FORMAT,
                "option_order": "".join(options),
                "language": first["language"],
                "written_by": "python -m probe mcq",
            },
        }
        scored = [r["acc"] for r in records if "acc" in r]
        accuracy[task] = {"alias": task}
        if scored:
            accuracy[task]["acc,none"] = sum(scored) / len(scored)
    model_args = {"pretrained": run["pretrained"], "dtype": run["dtype"]}
    if run["revision"]:
        model_args["revision"] = run["revision"]
    results = {
        "results": accuracy,
        "group_subtasks": {task: [] for task in logs},
        "configs": configs,
        "versions": {task: LOG_FORMAT for task in logs},
        "n-shot": {task: 0 for task in logs},
        "higher_is_better": {task: {"acc": True} for task in logs},
        "n-samples": {t: {"original": len(r), "effective": len(r)} for t, r in logs.items()},
        "config": {
            "model": "hf",
            "model_args": model_args,
            "batch_size": run["batch_size"],
            "device": run["device"],
        },
        "git_hash": None,
        "date": run["started_at"].timestamp(),
        "task_hashes": hashes,
        "model_source": "hf",
        "model_name": run["model"],
        "model_name_sanitized": run["slug"],
        "lm_eval_version": f"{HARNESS}-{_version()}",
        "probe": {  # what the harness does not record: how the probe scored
            **{k: v for k, v in run.items() if k not in ("started_at", "slug")},
            "prompt_template": template,
            "option_order": "".join(options),
            "target_delimiter": TARGET_DELIMITER,
            "started_at": run["started_at"].isoformat(),
        },
    }
    files[f"results_{date}.json"] = json.dumps(results, indent=2, ensure_ascii=False) + "\n"
    return files


def output_folder(out: Path, slug: str, replace: bool, project: Path) -> Path:
    """``out/slug``, refused when it exists, unless ``replace``: the reader takes one
    harness run per folder; and before anything is scored or written, when ``out`` is a
    file, or lies in or holds an input folder of ``project`` (its logs would be files the
    registries do not name, which stop every later landing)."""
    if out.exists() and not out.is_dir():
        raise ProbeError(f"--out {out}: is a file, not a folder", hint="name a folder")
    resolved = out.resolve()
    for folder in project_dir.input_folders(project, project_dir.project_vars(project)):
        inputs = folder.resolve()
        if resolved.is_relative_to(inputs) or inputs.is_relative_to(resolved):
            where = "lies in" if resolved.is_relative_to(inputs) else "holds"
            raise ProbeError(
                f"--out {out}: {where} the project's input folder {inputs}",
                hint="write the logs to a folder of their own (--land, or concord add lmeval, "
                "copies them into the study)",
            )
    final = inside(out, slug)
    if final.exists() and not replace:
        raise ProbeError(
            f"{final}: already holds the sample logs of this model",
            hint="pass --replace to replace them, or another --out",
        )
    return final


def write_folder(out: Path, slug: str, files: dict[str, str], replace: bool, project: Path) -> Path:
    """``out/slug`` with ``files``, whole or not at all (a hidden folder renamed into
    place; with ``replace``, an earlier folder is renamed aside first, then deleted)."""
    if out.is_dir():
        folders.settle(out)  # what a run killed while it wrote here left
    final = output_folder(out, slug, replace, project)
    out.mkdir(parents=True, exist_ok=True)
    return folders.write(
        final,
        {
            name: partial(Path.write_text, data=text, encoding="utf-8")
            for name, text in files.items()
        },
    )


def next_steps(folder: Path, task: str) -> str:
    """The commands that import the logs into the study (``concord probe mcq --land`` runs
    them after scoring)."""
    return (
        f"next: concord add lmeval {printable(folder)} --task-pattern '{task}_{{lang}}' "
        "[--variant NAME], then concord land"
    )
