"""``concord add lmeval PATH``: import an lm-evaluation-harness ``--output_path`` folder into
the study (docs/cross-lingual.md, "Importing an lm-eval run").

Every ``results_<date>.json`` under PATH and the sample logs the same harness run wrote
beside it (``samples_<task>_<date>.jsonl``, the same date) are copied, byte for byte, into
``seeds/mcq/answer_sources/<model slug>/`` (or the folder ``--as`` names), and the folder is
registered in ``mcq_answer_sources`` by one line whose ``task_pattern`` reads each log's
language from its task name (docs/landing.md, "lm-eval task names").

Everything is checked before the registry is written: the results files (the model, from
``model_name``, else ``model_args`` ``pretrained=``), that each log is of a multiple-choice task,
that each task name gives one task and language, and then the copied folder as the reader
will land it. A refusal is one line and leaves the project as it was (copies undone). A
results file without sample logs is reported (rerun with ``--log_samples``) and nothing is
taken from it. The same add again changes nothing and says so; a changed file replaces its
copy and says so.

The run lands under the harness's name for the model, and every mart names it as the model
aliases say (``seeds/models/model_aliases.csv``): ``--name`` adds the alias from the
harness's name to the name given, in the same step; without it, a model the harness names by
a local path (``/data/ckpt/llama-3``) gets its folder's name (``llama-3``), never the path
(a path that names no folder, ``/`` or ``x/..``, is refused: ``--name`` names it).
A spelling already aliased to another name, or a name that is itself a spelling, is refused.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pyarrow as pa

from concord_common import folders, inside_without_links, warehouse_lock
from concord_io.errors import ConcordError, disk_error, printable
from concord_io.landing.inspect_logs import log_run as run_of_log
from concord_io.landing.inspect_logs import read_eval_log
from concord_io.landing.lm_eval import SAMPLES_NAME, model_args, read_results
from concord_io.landing.mcq import Run, read_source_runs
from concord_io.landing.names import (
    AUTO,
    canonical_language,
    check_model_name,
    check_name,
    check_task_pattern,
    slug,
    split_task,
)
from concord_io.landing.schemas import Line, Seed, Study, declared_seeds
from concord_io.landing.seeds import read_seed
from concord_io.landing.sources import load, open_regular, read_csv
from concord_io.landing.study import (
    FIELD_PATH,
    answer_registry,
    check_answer_source,
    file_pattern,
    fingerprint_in_place,
    item_registry,
    load_study,
    match_in_place,
)
from concord_io.paths import inside, landing_dir, warehouse_dir

REGISTRY = "mcq_answer_sources"
PATTERN_COLUMN = "task_pattern"
DOMAIN_COLUMN = "domain_field"
TASK_COLUMN = "task"
RESULTS_NAME = re.compile(r"^results_(?P<date>.+)\.json$")
#: A folder under the answer sources folder that --as may name (it goes into a registry
#: line, where `*` would be a wildcard).
FOLDER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9][A-Za-z0-9._-]*)*$")
REMEDY = "pass --task-pattern"
NAME_EXAMPLE = '--name "Llama 3.2 3B (ours)"'
NAME_HINT = f"give the name the marts should show, e.g. {NAME_EXAMPLE}"


@dataclass
class HarnessRun:
    """One model's run of a harness: an lm-eval ``results_<date>.json`` and the sample logs
    of its tasks, or the Inspect AI logs of one model (``results`` None)."""

    results: Path | None
    model: str
    shown: str  # the results file, as messages name it (from PATH)
    #: harness task -> its sample log, and the task and language it gives
    logs: dict[str, Path] = field(default_factory=dict)
    mapped: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: the results file's tasks without a sample log
    missing: list[str] = field(default_factory=list)
    folder: str = ""

    @property
    def files(self) -> list[Path]:
        return [*([self.results] if self.results else []), *self.logs.values()]


@dataclass
class Copy:
    source: Path
    relative: str  # under the answer sources folder
    data: bytes
    status: str = ""  # added, replaced, unchanged
    before: bytes | None = None


def _shown(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.as_posix()


def _tasks(results: dict) -> list[str]:
    """The tasks the harness evaluated: its ``configs`` (one per task), less the groups
    (``group_subtasks``), which log no samples of their own."""
    groups = results.get("group_subtasks")
    groups = (
        {g for g, subtasks in groups.items() if subtasks} if isinstance(groups, dict) else set()
    )
    return sorted(task for task in results["configs"] if task not in groups)


def _harness_run(path: Path, shown: str) -> tuple[HarnessRun, dict]:
    results = read_results(path, shown)
    if not isinstance(results, dict) or not isinstance(results.get("configs"), dict):
        raise ConcordError(
            f"{printable(shown)}: not a results file of lm-evaluation-harness (no configs)",
            hint="point at the --output_path of an lm_eval run (version 0.4 or later)",
        )
    config = results.get("config")
    args = model_args(config.get("model_args") if isinstance(config, dict) else None)
    # the harness's model_name is pretrained= unless the writer named the model (probe mcq
    # --name); pretrained= stays in the run's provenance
    model = results.get("model_name") or args.get("pretrained")
    if not isinstance(model, str) or not model.strip():
        raise ConcordError(
            f"{printable(shown)}: names no model (no pretrained= in config.model_args, no "
            "model_name)",
            hint="restore the results file as the harness wrote it",
        )
    return HarnessRun(results=path, model=model.strip(), shown=shown), results


def _scores_options(path: Path, shown: str, output_type: object) -> None:
    """Refuse a log of a task that scores no options: Concord compares the per-option
    log-likelihoods of multiple-choice tasks."""
    problem = None
    if isinstance(output_type, str) and output_type != "multiple_choice":
        problem = f"output_type {output_type}"
    else:
        try:
            with path.open(encoding="utf-8") as handle:
                first = next((line for line in handle if line.strip()), "")
            record = json.loads(first) if first else None
        except (OSError, UnicodeDecodeError, ValueError):
            record = None  # the reader names the line and what is wrong with it
        if isinstance(record, dict) and not _per_option(record):
            problem = "no per-option log-likelihoods in filtered_resps or resps"
    if problem:
        raise ConcordError(
            f"{printable(shown)}: not a multiple-choice task ({printable(problem)}); Concord "
            "compares the log-likelihoods a model gives each option",
            hint="leave that task out of the harness run (--tasks), or move its log out of PATH",
        )


def _per_option(record: dict) -> bool:
    def number(value: object) -> bool:
        try:
            float(str(value))
        except ValueError:
            return False
        return True

    filtered, resps = record.get("filtered_resps"), record.get("resps")
    if isinstance(filtered, list) and filtered:
        return all(isinstance(r, list) and r and number(r[0]) for r in filtered)
    if isinstance(resps, list) and resps:
        return all(
            isinstance(r, list) and r and isinstance(r[0], list) and r[0] and number(r[0][0])
            for r in resps
        )
    return False


def _harness_runs(source: Path, pattern: str) -> tuple[list[HarnessRun], list[str]]:
    """Every results file under ``source`` with its sample logs (checked: multiple-choice,
    one task and language each), and a line for each results file without them."""
    found = sorted(p for p in source.rglob("results_*.json") if p.is_file())
    if not found:
        raise ConcordError(
            f"{printable(source)}: no results_<date>.json under it",
            hint="point at the --output_path of an lm_eval run (run with --log_samples)",
        )
    runs, notes, claimed = [], [], set()
    for path in found:  # a loop per results file
        shown = _shown(path, source)
        run, results = _harness_run(path, shown)
        date = RESULTS_NAME.match(path.name)
        assert date
        tasks = _tasks(results)
        for log in sorted(path.parent.iterdir()):  # the logs of the same harness run
            named = SAMPLES_NAME.match(log.name)
            if not named or named["date"] != date["date"]:
                continue
            # what it is (a FIFO, a device, a folder), said before a byte is read
            open_regular(log, _shown(log, source)).close()
            task, where = named["task"], _shown(log, source)
            if task not in tasks:
                raise ConcordError(
                    f"{printable(where)}: task {printable(task)} is not one of the tasks of "
                    f"{printable(shown)}",
                    hint="keep each harness run's files as the harness wrote them",
                )
            config = results["configs"][task]
            _scores_options(
                log, where, config.get("output_type") if isinstance(config, dict) else None
            )
            run.mapped[task] = split_task(task, pattern, printable(where), REMEDY)
            run.logs[task] = log
            claimed.add(log)
        run.missing = [task for task in tasks if task not in run.logs]
        if not run.logs:
            notes.append(
                f"{shown}: no sample logs beside it (task(s) {', '.join(tasks) or 'none'}); "
                "nothing is imported from it: rerun lm_eval with --log_samples"
            )
            continue
        if run.missing:
            notes.append(
                f"{shown}: no sample log for task(s) {', '.join(run.missing)}; the others are "
                "imported (rerun lm_eval with --log_samples for these)"
            )
        runs.append(run)
    orphans = [p for p in sorted(source.rglob("samples_*.jsonl")) if p not in claimed]
    if orphans:
        raise ConcordError(
            f"{printable(_shown(orphans[0], source))}: no results_<date>.json of the same "
            "harness run (the same date) beside it",
            hint="copy the harness's results file beside it (it names the model), or move the "
            "log out of PATH",
        )
    if not runs:
        raise ConcordError(
            notes[0] + (f" (and {len(notes) - 1} more results file(s))" if len(notes) > 1 else ""),
            hint="rerun lm_eval with --log_samples, and the same --output_path",
        )
    return runs, notes


def _inspect_runs(source: Path, pattern: str) -> tuple[list[HarnessRun], list[str]]:
    """Every Inspect AI log under ``source`` (``.eval``, ``.json``; checked: a log scored by
    ``choice()``, one per model and task), grouped by model: one run each."""
    found = sorted(p for p in source.rglob("*") if p.suffix in INSPECT_SUFFIXES and p.is_file())
    if not found:
        raise ConcordError(
            f"{printable(source)}: no Inspect AI log (.eval or .json) under it",
            hint="point at the --log-dir of an inspect eval run",
        )
    runs: dict[str, HarnessRun] = {}
    for path in found:  # a loop per log: its header only
        shown = _shown(path, source)
        open_regular(path, shown).close()
        log = run_of_log(read_eval_log(path, shown, header_only=True))
        run = runs.setdefault(log.model, HarnessRun(results=None, model=log.model, shown=shown))
        task = log.harness_task
        if task in run.logs:
            raise ConcordError(
                f"{printable(_shown(run.logs[task], source))} and {printable(shown)} are both "
                f"model {printable(log.model)}'s task {printable(task)}",
                hint="keep the one log of each task to count (move the other out of PATH)",
            )
        run.logs[task] = path
        # the language in the task name where it stands there, else the samples' own
        try:
            run.mapped[task] = split_task(task, pattern, printable(shown), REMEDY)
        except ConcordError:
            run.mapped[task] = (task, "")
    return list(runs.values()), []


@dataclass(frozen=True)
class Harness:
    """What ``concord add`` imports: the command, its registry format, the pattern its line
    registers a folder's files by, and how it finds the runs under PATH."""

    command: str
    format: str
    files: str
    runs: Callable[[Path, str], tuple[list[HarnessRun], list[str]]]

    def owns(self, path: Path) -> bool:
        """A file of this harness in a destination folder (an earlier run's)."""
        if self.format == "lm_eval":
            return bool(RESULTS_NAME.match(path.name) or SAMPLES_NAME.match(path.name))
        return path.suffix in INSPECT_SUFFIXES


INSPECT_SUFFIXES = (".eval", ".json")
HARNESSES = {
    "lmeval": Harness("concord add lmeval", "lm_eval", "samples_*.jsonl", _harness_runs),
    "inspect": Harness("concord add inspect", "inspect", "*", _inspect_runs),
}


def _destinations(runs: list[HarnessRun], as_folder: str | None) -> None:
    models = sorted({run.model for run in runs})
    if as_folder is not None:
        if not FOLDER.match(as_folder) or any(part in (".", "..") for part in as_folder.split("/")):
            raise ConcordError(
                f"--as {printable(as_folder)}: not a folder name (letters, digits, '.', '_', "
                "'-', folders joined by '/')",
                hint="name a folder under seeds/mcq/answer_sources/, e.g. --as llama-3b-fewshot",
            )
        if len(models) > 1:
            raise ConcordError(
                f"--as {printable(as_folder)}: PATH holds the runs of {len(models)} models "
                f"({printable(', '.join(models))}); a folder holds one model's",
                hint="add each model's folder on its own",
            )
    by_folder: dict[str, str] = {}
    by_task: dict[tuple[str, str, str], Path] = {}
    for run in runs:
        run.folder = as_folder or slug(run.model, 80)
        other = by_folder.setdefault(run.folder, run.model)
        if other != run.model:
            raise ConcordError(
                f"models {printable(other)} and {printable(run.model)} both go to folder "
                f"{printable(run.folder)}",
                hint="add each model's folder on its own, with --as",
            )
        for harness_task, log in run.logs.items():
            task, language = run.mapped[harness_task]
            first = by_task.setdefault((run.folder, task, language), log)
            if first != log:
                # which of the two holds the answers is not for Concord to decide
                raise ConcordError(
                    f"{printable(first.name)} and {printable(log.name)} both give task "
                    f"{printable(task)}, language {language}",
                    hint="pass a --task-pattern that tells them apart, or add one harness run "
                    "at a time, each with its own --as folder",
                )


_ABSENT = object()


def _fields_without(run: HarnessRun, parts: list[str]) -> set[str] | None:
    """None where a sample of ``run``'s logs has the field ``parts`` (names of nested
    mappings) in its document, reading up to the first that has it; else the fields their
    documents have."""
    seen: set[str] = set()
    for log in run.logs.values():
        with log.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:  # a loop per sample, until one has the field
                try:
                    doc = json.loads(line).get("doc")
                except (ValueError, AttributeError):
                    continue  # not a sample: the reader names it
                if not isinstance(doc, dict):
                    continue
                seen |= set(doc)
                value: object = doc
                for part in parts:
                    value = value.get(part, _ABSENT) if isinstance(value, dict) else _ABSENT
                if value is not _ABSENT:
                    return None
    return seen


def _refuse_absent_field(runs: list[HarnessRun], field: str, source: Path) -> None:
    """``--domain-field`` that no sample of a run has in its document (every answer would
    land without a domain): refused naming the fields the documents have."""
    for run in runs:
        seen = _fields_without(run, field.split("."))
        if seen is None:
            continue
        folder = _shown(run.files[0].parent, source)
        raise ConcordError(
            f"--domain-field {printable(field)}: no sample of "
            f"{printable(folder if folder != '.' else source.name)} has doc.{printable(field)} "
            f"(their documents have {printable(', '.join(sorted(seen)) or 'no field')})",
            hint="name a field of the documents (names joined by dots for a nested one, e.g. "
            "meta.subject), or leave --domain-field out for doc.domain",
        )


def _registry(
    study: Study, name: str = REGISTRY
) -> tuple[Path, list[str], list[dict[str, str]], str]:
    """A registry (the answer sources' by default): its path, header, rows and line ending.
    A registry written before a column declared optional existed (``task_pattern``,
    ``domain_field``) is read without it, and written with it."""
    path = study.registry(name)
    declared = study.columns[name]
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ConcordError(
            f"{name}: registry not found or unreadable ({path}: {error.strerror})",
            hint="every study registry is a CSV file in seeds/mcq/ (a header alone is enough)",
        ) from None
    label = f"{name} ({study.relative(path)})"
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    checked = read_csv(
        data, label, declared=declared, one_line_ending=False, allow_no_rows=True,
        optional=study.optional[name],
    )  # fmt: skip
    rows = [
        {name.lower(): value for name, value in row.items()} for row in checked.table.to_pylist()
    ]
    ending = "\r\n" if text.split("\n", 1)[0].endswith("\r") else "\n"
    return path, [name.lower() for name in checked.header], rows, ending


def _check_lines(
    study: Study, rows: list[dict[str, str]], ours: dict[str, dict[str, str]], copies: list[Copy]
) -> list[dict[str, str]]:
    """The lines to append (ours not yet registered); refused where a line of the registry
    says otherwise for one of our folders, or matches one of our files."""
    new = []
    for file, line in ours.items():
        same = [row for row in rows if row.get("file", "").strip() == file]
        if same:
            registered = {k: (v or "").strip() for k, v in same[0].items()}
            differ = [k for k, v in line.items() if registered.get(k, "") != v]
            if differ:
                raise ConcordError(
                    f"{REGISTRY}: {printable(file)} is registered already with "
                    + ", ".join(f"{k} {printable(registered.get(k) or '(blank)')}" for k in differ)
                    + "; this run has "
                    + ", ".join(f"{k} {printable(line[k] or '(blank)')}" for k in differ),
                    hint="a folder holds one model's runs under one line: pass --as another folder",
                )
        else:
            new.append(line)
        folder = file.rsplit("/", 1)[0]
        listed = [c.relative for c in copies if c.relative.startswith(folder + "/")]
        directory = study.sources_dir / folder
        if directory.is_dir():
            listed += [f"{folder}/{p.name}" for p in directory.iterdir() if p.is_file()]
        for row in rows:
            other = row.get("file", "").strip()
            if other == file or not other:
                continue
            pattern = file_pattern(other)
            clash = next((name for name in sorted(set(listed)) if pattern.match(name)), None)
            if clash:
                raise ConcordError(
                    f"{REGISTRY}: {printable(clash)} is matched by the line for "
                    f"{printable(other)} already",
                    hint="pass --as another folder, or remove that line",
                )
    return new


def _target(study: Study, sources: Path, relative: str) -> Path:
    """Where a copy goes: inside the answer sources folder, through no link."""
    return inside_without_links(
        sources,
        relative,
        what="copy",
        hint="remove the link, or pass --as another folder",
        error=ConcordError,
    )


def _write(path: Path, data: bytes) -> None:
    """``data`` as ``path``, whole or not at all (a hidden file renamed into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = folders.hidden_sibling(path, "tmp")
    try:
        staging.write_bytes(data)
        folders.fsync(staging)
        os.replace(staging, path)
        folders.fsync(path.parent)
    except OSError as error:
        staging.unlink(missing_ok=True)
        known = disk_error(error, path, "free space, or fix the folder's permissions")
        if known is None:
            raise
        raise known from None


def _undo(copies: list[Copy], targets: dict[str, Path]) -> None:
    for copy in copies:
        target = targets[copy.relative]
        if copy.status == "added":
            target.unlink(missing_ok=True)
        elif copy.status in ("replaced", "removed") and copy.before is not None:
            _write(target, copy.before)


def _earlier_run(
    study: Study, sources: Path, runs: list[HarnessRun], targets: dict[str, Path], options: Options
) -> list[Copy]:
    """The files of another run of the harness in the add's folders (results files and
    sample logs, or Inspect logs, it does not bring): with ``--replace``, the copies to
    remove (``status`` removed, their bytes kept to put back: an lm-eval folder's whole
    earlier run, an Inspect folder's logs of the tasks this add brings); without, refused
    where that run records a task this one records (the reader keeps one run per folder and
    task), naming the files and --replace."""
    brought = set(targets.values())
    found: list[Copy] = []
    for folder in sorted({run.folder for run in runs}):
        here = sources / folder
        others = sorted(
            p for p in (here.iterdir() if here.is_dir() else [])
            if p not in brought and options.importer.owns(p)
        )  # fmt: skip
        tasks = {task for run in runs if run.folder == folder for task in run.logs}
        for path in others:
            relative = f"{folder}/{path.name}"
            overlap = sorted(tasks & _tasks_recorded(study, path, options.harness))
            # an lm-eval folder is one harness run, replaced whole; an Inspect folder holds
            # a model's logs, one per task: a log of another task stays
            if options.replace and (options.harness == "lmeval" or overlap):
                found.append(Copy(path, relative, b"", "removed", path.read_bytes()))
                targets[relative] = path
            elif overlap and not options.replace:
                raise ConcordError(
                    f"{printable(study.relative(path))}: another harness run of task(s) "
                    f"{printable(', '.join(overlap))} is already in "
                    f"{printable(study.relative(here))}",
                    hint="pass --replace to replace it with this one, or --as another "
                    "folder to keep both",
                )
    return found


def _tasks_recorded(study: Study, path: Path, harness: str) -> set[str]:
    """The harness tasks a file of an earlier run records: a results file's, an Inspect
    log's one task (a sample log is its results file's)."""
    if harness == "inspect":
        return {run_of_log(read_eval_log(path, study.relative(path), header_only=True))
                .harness_task}  # fmt: skip
    if not RESULTS_NAME.match(path.name):
        return set()
    recorded = read_results(path, study.relative(path))
    return set(_tasks(recorded if isinstance(recorded, dict) else {}))


def local_path(model: str) -> bool:
    """Whether the harness named the model by a folder of its machine (absolute, relative or
    home-relative; a hub id is owner/name)."""
    return model.startswith(("/", "./", "../", "~")) or model.count("/") > 1 or "\\" in model


@dataclass
class ModelAliases:
    """The model aliases seed (spelling -> the name the marts use), as add reads and extends
    it: its path, header, rows and line ending."""

    path: Path | None  # None: the project declares no aliases seed
    relative: str
    header: list[str]
    rows: list[dict[str, str]]
    ending: str

    @classmethod
    def read(cls, root: Path) -> ModelAliases:
        seed = next((s for s in declared_seeds(root) if s.name == "model_aliases"), None)
        if seed is None:
            return cls(None, "the model aliases seed", [], [], "\n")
        rows, ending = _seed_lines(seed)
        return cls(seed.path, seed.relative, list(seed.columns), rows, ending)

    def wanted(self, runs: list[HarnessRun], name: str | None) -> dict[str, str]:
        """spelling -> name of the aliases this add needs, checked against the seed's."""
        models = sorted({run.model for run in runs})
        if name is not None and len(models) > 1:
            raise ConcordError(
                f"--name {printable(name)}: the folder holds {len(models)} models "
                f"({', '.join(printable(m) for m in models)})",
                hint="add each model's folder on its own, each with its --name",
            )
        wanted = {
            model: name if name is not None else Path(model.replace("\\", "/")).name
            for model in models
            if name is not None or local_path(model)
        }
        for run in runs:  # `/` or `x/..` name no folder: the alias would be blank or `..`
            if wanted.get(run.model) in ("", ".", ".."):
                raise ConcordError(
                    f"{printable(run.shown)}: model {printable(repr(run.model))} is a local "
                    f"path whose folder gives no name ({wanted[run.model]!r})",
                    hint=f"pass --name with the name the marts should show, e.g. {NAME_EXAMPLE}",
                )
        held = {row["spelling"]: row["model"] for row in self.rows}
        for spelling, target in wanted.items():
            if spelling == target:
                continue
            if held.get(spelling, target) != target:
                raise ConcordError(
                    f"{self.relative}: {printable(spelling)} is already an alias of "
                    f"{printable(held[spelling])}, not {printable(target)}",
                    hint="change or remove that line of the aliases first, or leave --name out",
                )
            if target in held:
                raise ConcordError(
                    f"--name {printable(target)}: is itself a spelling in {self.relative} (of "
                    f"{printable(held[target])}); an alias never leads to another alias",
                    hint=f"use --name {printable(held[target])}",
                )
        wanted = {k: v for k, v in wanted.items() if k != v and k not in held}
        if wanted and self.path is None:
            raise ConcordError(
                "this project declares no model_aliases seed, so the model cannot be renamed "
                f"({', '.join(printable(k) for k in wanted)})",
                hint="declare seeds/models/model_aliases.csv as the shipped project does "
                "(models/staging/models/_models__sources.yml)",
            )
        return wanted

    def add(self, root: Path, wanted: dict[str, str]) -> list[str]:
        """Append ``wanted`` to the seed; the lines that say so."""
        if not wanted:
            return []
        rows = self.rows + [{"spelling": k, "model": v} for k, v in sorted(wanted.items())]
        assert self.path is not None  # wanted() refused an alias without a seed
        text = _registry_text(self.header, rows, self.ending)
        _write(inside(root, self.path, what="model aliases"), text.encode("utf-8"))
        return [
            f"alias      {printable(k)} -> {printable(v)}  ({self.relative}: the marts' name)"
            for k, v in sorted(wanted.items())
        ]


def _seed_lines(seed: Seed) -> tuple[list[dict], str]:
    """The seed file's lines as the reader lands them (:func:`read_seed`: as written, each
    declared format canonical, no key twice), and its line ending; none for an empty or
    missing file."""
    data = seed.path.read_bytes() if seed.path.is_file() else b""
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    if not text:
        return [], "\n"
    ending = "\r\n" if text.split("\n", 1)[0].endswith("\r") else "\n"
    return read_seed(seed, data).select(list(seed.columns)).to_pylist(), ending


def _registry_text(header: list[str], rows: list[dict[str, str]], ending: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=ending)
    writer.writerow(header)
    writer.writerows([[row.get(name, "") or "" for name in header] for row in rows])
    return out.getvalue()


@dataclass
class TaskLanguages:
    """The languages each task declares, as add reads and extends them: the task's lines of
    seeds/mcq/mcq_task_languages.csv, else (the study's default task) its item files'
    languages. The rule is int_mcq_task_languages_declared's, which the build applies (held
    to it by tests/python/test_mcq_any_languages.py); add only reads it to say which
    answers the build will set aside, and writes the lines ``--languages`` gives."""

    path: Path | None  # None: the project declares no task languages seed
    relative: str
    header: list[str]
    rows: list[dict[str, str]]
    ending: str
    item_files: dict[str, list[str]]

    @classmethod
    def read(cls, root: Path, study: Study) -> TaskLanguages:
        item_files = {
            study.task: sorted(
                {
                    canonical_language(line["language"], "mcq_item_files")
                    for line in item_registry(study)
                }
            )
        }
        item_files = {task: langs for task, langs in item_files.items() if langs}
        seed = next((s for s in declared_seeds(root) if s.name == "mcq_task_languages"), None)
        if seed is None:
            return cls(None, "the task languages seed", [], [], "\n", item_files)
        rows, ending = _seed_lines(seed)
        return cls(seed.path, seed.relative, list(seed.columns), rows, ending, item_files)

    def of(self, task: str) -> tuple[list[str], str]:
        """The languages ``task`` declares and where (none: every language it answers)."""
        listed = sorted(row["language"] for row in self.rows if row["task"] == task)
        if listed:
            return listed, self.relative
        return self.item_files.get(task, []), "its item files"

    def refuse_change(self, tasks: list[str], languages: list[str]) -> None:
        """A task that compares other languages than ``languages`` (its lines, or its item
        files'): they are every run's, so this add may not change them unasked."""
        for task in tasks:
            before, where = self.of(task)
            if before and before != languages:
                raise ConcordError(
                    f"--languages {','.join(languages)}: task {task} compares "
                    f"{', '.join(before)} for every run (declared by {where}); this add would "
                    "change that",
                    hint=f"pass --replace-languages to compare task {task} in "
                    f"{', '.join(languages)} in every run, or leave --languages out",
                )

    def declare(self, root: Path, tasks: list[str], languages: list[str]) -> list[str]:
        """Each of ``tasks`` compared in ``languages`` (its lines replaced); the lines that
        say so."""
        if self.path is None:
            raise ConcordError(
                "this project declares no mcq_task_languages seed, so --languages has nowhere "
                "to go",
                hint="declare seeds/mcq/mcq_task_languages.csv as the shipped project does "
                "(models/staging/mcq/_mcq__sources.yml)",
            )
        out = []
        for task in tasks:
            before, _ = self.of(task)
            if [r["language"] for r in self.rows if r["task"] == task] == languages:
                out.append(f"unchanged  {self.relative}: task {task} compares "
                           f"{', '.join(languages)}")  # fmt: skip
                continue
            self.rows = [r for r in self.rows if r["task"] != task]
            self.rows += [{"task": task, "language": lang} for lang in languages]
            out.append(
                f"languages  task {task} compares {', '.join(languages)}  ({self.relative}"
                + (f"; was {', '.join(before)})" if before else ")")
            )
        text = _registry_text(self.header, self.rows, self.ending)
        _write(inside(root, self.path, what="task languages"), text.encode("utf-8"))
        return out


@dataclass(frozen=True)
class Options:
    """What ``concord add lmeval`` was asked (its flags; see :func:`add_lmeval`)."""

    task_pattern: str | None = None
    as_folder: str | None = None
    variant: str = "base"
    name: str | None = None
    languages: list[str] | None = None
    domain_field: str | None = None
    replace_languages: bool = False
    replace: bool = False
    new_variant: bool = False
    #: the study's task the logs land as, whatever the harness calls it (``--task``)
    task: str | None = None
    #: what is imported: ``lmeval`` or ``inspect`` (:data:`HARNESSES`)
    harness: str = "lmeval"
    #: register the folder where it is (``--in-place``): nothing is copied
    in_place: bool = False

    @property
    def importer(self) -> Harness:
        return HARNESSES[self.harness]

    def checked(self) -> Options:
        """The flags checked, before anything is read: the variant and ``--name`` names, the
        languages canonical, the task pattern (default ``auto``)."""
        command = self.importer.command
        check_name(self.variant, command, column="--variant")
        if self.task is not None:
            check_name(self.task, command, column="--task")
        name = self.name
        if name is not None:
            name = check_model_name(name, "--name", hint=NAME_HINT)
        languages = self.languages
        if languages is not None:
            languages = sorted({canonical_language(lang, command, "--languages")
                                for lang in languages if lang.strip()})  # fmt: skip
            if not languages:
                raise ConcordError(
                    "--languages names no language",
                    hint="give the task's languages, e.g. --languages en,de,fr",
                )
        if self.in_place and self.as_folder is not None:
            raise ConcordError(
                "--as names the folder a copy goes to; --in-place copies nothing",
                hint="pass one of them",
            )
        pattern = check_task_pattern(self.task_pattern or AUTO, "--task-pattern")
        return replace(self, name=name, languages=languages, task_pattern=pattern)


def add_lmeval(project_root: Path | str, path: Path | str, **options) -> list[str]:
    """Import the harness output folder ``path`` into the project at ``project_root``; the
    lines to print (one per file, registry line, alias, languages, run and note). The
    options (:class:`Options`): ``name``, what the marts call the model (an alias of the
    harness's name for it); ``languages``, the languages its tasks are compared in
    (seeds/mcq/mcq_task_languages.csv), refused where a task declares others unless
    ``replace_languages``; ``domain_field``, the field of a sample's document that names its
    item's domain; ``replace``, the harness run already in the destination folder (its other
    files) is replaced by this one; ``task``, the study's task its logs land as (the shipped
    items' ``xcloze`` for a harness run of them under another name); ``task_pattern``,
    ``as_folder``, ``variant``.

    Holds the warehouse lock (:mod:`concord_common.warehouse_lock`) from its first read of
    ``seeds/`` to its last write: it rewrites whole seed files from what it read, so another
    add (or a landing, or a build reading them) between the two would be lost or mixed."""
    return add_run(project_root, path, harness="lmeval", **options)


def add_inspect(project_root: Path | str, path: Path | str, **options) -> list[str]:
    """Import the Inspect AI log folder ``path`` (``inspect eval --log-dir``), as
    :func:`add_lmeval` imports a harness folder: one folder and registry line per model."""
    return add_run(project_root, path, harness="inspect", **options)


def detect_harness(path: Path) -> str:
    """Which harness wrote the folder ``path`` (``concord add PATH``): ``lmeval`` where it
    holds an lm-eval results file or sample log, ``inspect`` where it holds Inspect AI logs
    (``.eval``, or ``.json`` that is no results file); refused, naming what it found, where
    it holds both or neither."""
    if not path.is_dir():
        raise ConcordError(
            f"{printable(path)}: not a folder",
            hint="give the output folder of an lm_eval run or of inspect eval",
        )
    files = [p for p in path.rglob("*") if p.is_file()]
    lmeval = [p for p in files if RESULTS_NAME.match(p.name) or SAMPLES_NAME.match(p.name)]
    inspect = [p for p in files if p.suffix in INSPECT_SUFFIXES and p not in lmeval]
    if lmeval and inspect:
        raise ConcordError(
            f"{printable(path)}: holds lm-eval output ({printable(_shown(lmeval[0], path))}) "
            f"and Inspect AI logs ({printable(_shown(inspect[0], path))})",
            hint="add each with its command: concord add lmeval PATH, concord add inspect PATH",
        )
    if not (lmeval or inspect):
        raise ConcordError(
            f"{printable(path)}: no lm-eval output (results_<date>.json, samples_*.jsonl) "
            "or Inspect AI log (.eval, .json) under it",
            hint="point at the --output_path of an lm_eval run or the --log-dir of inspect eval",
        )
    return "lmeval" if lmeval else "inspect"


def add_run(project_root: Path | str, path: Path | str, **options) -> list[str]:
    """Import a harness's output (``options["harness"]``: :data:`HARNESSES`), as
    :func:`add_lmeval` says."""
    root = Path(project_root).resolve()
    checked = Options(**options).checked()
    command = checked.importer.command
    with warehouse_lock.held(landing_dir(root), command, error=ConcordError):
        return _add(root, Path(path), checked)


def _source_folder(study: Study, root: Path, path: Path) -> tuple[Path, Path]:
    """The harness's output folder, resolved, and the answer sources folder: refused where
    either holds the other (the add copies one into the other)."""
    sources = inside(root, study.sources_dir, what="mcq_answer_sources_dir")
    if not path.is_dir():
        raise ConcordError(
            f"{printable(path)}: not a folder",
            hint="give the --output_path folder of an lm_eval run",
        )
    source = path.resolve()
    if source == sources or sources in source.parents or source in sources.parents:
        raise ConcordError(
            f"{printable(source)}: overlaps the answer sources folder {study.relative(sources)}",
            hint="give the harness's own --output_path (concord add copies it into the project)",
        )
    return source, sources


def _copies(
    study: Study, runs: list[HarnessRun], source: Path, sources: Path
) -> tuple[dict[str, Copy], dict[str, Path]]:
    """What to copy (relative path under the answer sources folder -> its copy) and where,
    each copy with what it finds there (``added``, ``unchanged``, ``replaced``)."""
    copies: dict[str, Copy] = {}
    for run in runs:
        for file in run.files:
            relative = f"{run.folder}/{file.name}"
            data = file.read_bytes()
            known = copies.get(relative)
            if known is not None and known.data != data:
                raise ConcordError(
                    f"{printable(_shown(known.source, source))} and "
                    f"{printable(_shown(file, source))} both go to {printable(relative)} and "
                    "differ",
                    hint="add the folders one at a time, with --as",
                )
            copies[relative] = Copy(file, relative, data)
    targets = {relative: _target(study, sources, relative) for relative in copies}
    for relative, copy in copies.items():
        target = targets[relative]
        if target.exists() and not target.is_file():
            raise ConcordError(
                f"{printable(study.relative(target))}: is not a file",
                hint="remove it, or pass --as another folder",
            )
        copy.before = target.read_bytes() if target.is_file() else None
        same = copy.before == copy.data
        copy.status = "added" if copy.before is None else "unchanged" if same else "replaced"
    return copies, targets


def _lines(runs: list[HarnessRun], options: Options) -> dict[str, dict[str, str]]:
    """The registry line of each folder the add writes (its logs' pattern -> its cells)."""
    return {
        f"{run.folder}/{options.importer.files}": {
            "file": f"{run.folder}/{options.importer.files}",
            "format": options.importer.format,
            "model": run.model,
            "run": options.variant,
            "language": "",
            "presented_option_order": "",
            "item_key": "",
            PATTERN_COLUMN: options.task_pattern or AUTO,
            DOMAIN_COLUMN: options.domain_field or "",
            TASK_COLUMN: options.task or "",
        }
        for run in runs
    }


def _copy_and_read(
    study: Study,
    sources: Path,
    plan: tuple[list[Copy], list[Copy], dict[str, Path]],
    ours: dict[str, dict[str, str]],
    notes: list[str],
) -> list[Run]:
    """The earlier run's files removed and the copies written (``plan``: those two lists and
    the copies' targets), then the copied folders read and checked as the reader will land
    them: their runs. A refusal puts back what was there and removes the folders made."""
    earlier, changed, targets = plan
    # the folders the copies create, removed again if the add is refused
    created = sorted(
        {
            folder
            for copy in changed
            for folder in (targets[copy.relative].parent, *targets[copy.relative].parents)
            if sources in folder.parents and not folder.exists()
        },
        key=lambda folder: len(folder.parts),
        reverse=True,
    )
    done: list[Copy] = []
    try:
        for copy in earlier:  # the run replaced: its files go (put back if refused)
            targets[copy.relative].unlink()
            done.append(copy)
        for copy in changed:
            _write(targets[copy.relative], copy.data)
            done.append(copy)
        lines = []
        for values in ours.values():
            line = Line(REGISTRY, dict(values), base=sources)
            check_answer_source(study, line)
            matcher = file_pattern(line.file)
            folder = line.file.rsplit("/", 1)[0]
            line.paths = sorted(
                f"{folder}/{p.name}"
                for p in (sources / folder).iterdir()
                if p.is_file() and matcher.match(f"{folder}/{p.name}")
            )
            lines.append(line)
        return read_source_runs(study, lines, notes)
    except BaseException:
        _undo(done, targets)
        for made in created:
            if made.is_dir() and not any(made.iterdir()):
                made.rmdir()
        raise


def _refuse_variant_typo(study: Study, rows: list[dict[str, str]], variant: str) -> None:
    """A variant that no run of the study has, one typo from one that it has (``shufled``
    for ``shuffled``), is refused naming the nearest: a new variant starts a new comparison
    (its runs compared with no baseline run), so it is asked for by name (--new-variant)."""
    known = {"base", "shuffled"} | {row.get("run", "") for row in rows}
    known |= {line["run"] for line in answer_registry(study)}
    near = difflib.get_close_matches(variant, sorted(known - {"", variant}), n=1, cutoff=0.8)
    if variant not in known and near:
        raise ConcordError(
            f"--variant {printable(variant)}: no run of the study has it; did you mean "
            f"{printable(near[0])}?",
            hint=f"pass --variant {near[0]}, or --new-variant to start variant "
            f"{printable(variant)}",
        )


def _write_registry(
    root: Path,
    study: Study,
    read: tuple[Path, list[str], list[dict[str, str]], str],
    new_lines: list[dict[str, str]],
) -> None:
    """``new_lines`` appended to the answer sources registry (``read``: :func:`_registry`'s
    reading of it; a registry from before its optional columns is written whole, with
    them)."""
    registry, header, rows, ending = read
    later = [name for name in study.optional[REGISTRY] if name not in header]
    if later:  # a registry from before these columns: given them
        text = _registry_text([*header, *later], rows + new_lines, ending)
    else:
        text = registry.read_bytes().decode("utf-8")
        if text and not text.endswith("\n"):
            text += ending
        text += _registry_text(header, new_lines, ending).split(ending, 1)[1]
    _write(inside(root, registry, what="registry"), text.encode("utf-8"))


def _add(root: Path, path: Path, options: Options) -> list[str]:
    study = load_study(root)
    declared = TaskLanguages.read(root, study)
    source, sources = _source_folder(study, root, path)
    pattern = options.task_pattern or AUTO
    runs, notes = options.importer.runs(source, pattern)
    override = {canonical_language(lang, "dbt_project.yml: vars") for lang in study.languages}
    if options.languages is not None and not override and not options.replace_languages:
        declared.refuse_change(
            sorted({task for run in runs for task, _ in run.mapped.values()}), options.languages
        )
    if (
        options.harness == "lmeval"
        and options.domain_field is not None
        and FIELD_PATH.match(options.domain_field)
    ):
        _refuse_absent_field(runs, options.domain_field, source)
    _destinations(runs, options.as_folder)
    aliases = ModelAliases.read(root)
    wanted = aliases.wanted(runs, options.name)
    if options.in_place:
        read, out = _register_in_place(root, study, runs, options, notes)
        return _added(root, study, (aliases, wanted, declared), read, options, out, notes)
    copies, targets = _copies(study, runs, source, sources)
    earlier = _earlier_run(study, sources, runs, targets, options)
    ours = _lines(runs, options)
    registry = _registry(study)
    if not options.new_variant:
        _refuse_variant_typo(study, registry[2], options.variant)
    new_lines = _check_lines(study, registry[2], ours, list(copies.values()))
    changed = [copy for copy in copies.values() if copy.status != "unchanged"]
    landed = _copy_and_read(study, sources, (earlier, changed, targets), ours, notes)
    if new_lines:
        _write_registry(root, study, registry, new_lines)
    out = _copy_lines(study, copies, earlier, targets)
    out += _registered_lines(ours, new_lines, options)
    anything = bool(changed or new_lines or earlier)
    return _added(root, study, (aliases, wanted, declared), (landed, anything), options, out, notes)


def _added(
    root: Path,
    study: Study,
    declared_by: tuple[ModelAliases, dict[str, str], TaskLanguages],
    read: tuple[list[Run], bool],
    options: Options,
    out: list[str],
    notes: list[str],
) -> list[str]:
    """What follows the files and lines of an add: the alias (``--name``), the tasks'
    languages (``--languages``), a line per run read and the notes; the lines to print
    (``read``: the runs read, and whether the add changed a file or registry line)."""
    aliases, wanted, declared = declared_by
    landed, anything = read
    override = {canonical_language(lang, "dbt_project.yml: vars") for lang in study.languages}
    out += aliases.add(root, wanted)
    answered = _answered(landed)
    if options.languages is not None and not override:
        out += declared.declare(root, sorted(answered), options.languages)
    out += _run_lines(landed)
    notes += _language_notes(study, landed, answered, declared, override, options)
    out += [f"note       {note}" for note in notes]
    if not anything:
        out.append("nothing added: the same files are already there, and registered")
    else:
        out.append("next: `concord land` (or dbt build) lands the run")
    return out


def _in_place_lines(study: Study, runs: list[HarnessRun], options: Options) -> list[Line]:
    """The registry lines of ``runs`` registered where they are: one per folder of a run's
    files (and per suffix, for Inspect logs), its files matched as the reader will match
    them (the harness's files under PATH are all of its runs': another file a line's pattern
    matches was refused as not the harness's) and its fingerprint taken. A folder of two
    models' logs is refused: its line could not tell them apart."""
    importer = options.importer
    groups: dict[tuple[Path, str], HarnessRun] = {}
    for run in runs:
        for file in run.files:
            pattern = importer.files if importer.format == "lm_eval" else f"*{file.suffix}"
            other = groups.setdefault((file.parent, pattern), run)
            if other.model != run.model:
                raise ConcordError(
                    f"{printable(study.relative(file.parent))}: holds the logs of models "
                    f"{printable(other.model)} and {printable(run.model)}; a folder registered "
                    "in place is one model's",
                    hint="move each model's logs into a folder of its own, or add without "
                    "--in-place (a copy per model)",
                )
    lines = []
    for (folder, pattern), run in sorted(groups.items(), key=lambda g: (str(g[0][0]), g[0][1])):
        named = study.relative(folder)
        values = dict(_lines([run], options).popitem()[1], file=pattern, folder=named)
        line = Line(REGISTRY, values)
        match_in_place(study, line, [])
        loaded = [load(study.root, relative) for relative in line.paths]
        line.values["fingerprint"] = fingerprint_in_place(folder, importer.format, loaded)
        lines.append(line)
    return lines


def _key(cells: dict[str, str]) -> tuple[str, str]:
    """A registry line's identity: its folder (blank: the answer sources folder) and file."""
    return (cells.get("folder") or "").strip(), (cells.get("file") or "").strip()


def _refuse_registered_elsewhere(rows: list[dict[str, str]], lines: list[Line]) -> None:
    """A model and variant registered in place from another folder already: a second run of
    them would be refused by the landing (one model twice), so the add says so first."""
    ours = {_key(line.values) for line in lines}
    for line in lines:
        for row in rows:
            same_run = (row.get("model"), row.get("run")) == (line["model"], line["run"])
            if same_run and _key(row)[0] and _key(row) not in ours:
                raise ConcordError(
                    f"model {printable(line['model'])}, variant {printable(line['run'])} is "
                    f"registered in place already from {printable(_key(row)[0])}",
                    hint="pass --replace to register this folder in its place, or --variant "
                    "for a run beside it",
                )


def _register_in_place(
    root: Path, study: Study, runs: list[HarnessRun], options: Options, notes: list[str]
) -> tuple[tuple[list[Run], bool], list[str]]:
    """``--in-place``: each folder of the runs registered where it is, nothing copied (the
    registry names the folder, relative to the project where it lies inside it, and the
    fingerprint of its files): read and checked as the reader will land it first. A line of
    the same folder registered with other files or cells is refused unless ``--replace``,
    which replaces it and every line registered in place of the same model and variant."""
    lines = _in_place_lines(study, runs, options)
    path, header, rows, ending = _registry(study)
    if not options.new_variant:
        _refuse_variant_typo(study, rows, options.variant)
    ours = {_key(line.values): line.values for line in lines}
    same = [row for row in rows if _key(row) in ours]
    kept, out = rows, []
    if options.replace:  # our folders' lines, and the model's and variant's in place elsewhere
        ran = {(line["model"], line["run"]) for line in lines}
        of_run = lambda row: (row.get("model") or "", row.get("run") or "")  # noqa: E731
        replaced = [row for row in rows if row not in ours.values() and _key(row)[0]
                    and (_key(row) in ours or of_run(row) in ran)]  # fmt: skip
        kept = [row for row in rows if row not in replaced]
    else:
        _refuse_registered_elsewhere(rows, lines)
        for row in same:
            ours_row = ours[_key(row)]
            differ = [k for k, v in ours_row.items() if (row.get(k) or "").strip() != v]
            if differ:
                raise ConcordError(
                    f"{REGISTRY}: {printable('/'.join(_key(row)))} is registered in place "
                    f"already with other {', '.join(differ)} (its files changed, or another "
                    "run's flags)",
                    hint="pass --replace to register it as it is now",
                )
    landed = read_source_runs(study, lines, notes)
    new_rows = [values for values in ours.values() if values not in kept]
    dropped = [row for row in rows if row not in kept]
    for values in ours.values():
        what = f"{values['folder']}/{values['file']}"
        where = f"(in place: nothing copied; model {values['model']}, run {values['run']})"
        out.append(f"{'registered' if values in new_rows else 'unchanged '} {what}  {where}")
    out += [f"replaced   {row['folder']}/{row['file']}  (--replace)" for row in dropped
            if _key(row) not in ours]  # fmt: skip
    if new_rows or dropped:
        columns = [*header, *(c for c in study.optional[REGISTRY] if c not in header)]
        text = _registry_text(columns, [*kept, *new_rows], ending)
        _write(inside(root, path, what="registry"), text.encode("utf-8"))
    return (landed, bool(new_rows or dropped)), out


def _copy_lines(
    study: Study, copies: dict[str, Copy], earlier: list[Copy], targets: dict[str, Path]
) -> list[str]:
    """One line per file copied (or found already there) and per file of a replaced run."""
    said = {
        "unchanged": "unchanged  {}  (the same bytes are already there)",
        "replaced": "replaced   {}  (the file changed: the copy is replaced)",
        "added": "added      {}",
        "removed": "removed    {}  (the earlier harness run, replaced: --replace)",
    }
    return [
        said[copy.status].format(study.relative(targets[copy.relative]))
        for copy in [*copies.values(), *earlier]
    ]


def _registered_lines(
    ours: dict[str, dict[str, str]], new_lines: list[dict[str, str]], options: Options
) -> list[str]:
    """One line per registry line: registered now, or already."""
    out = []
    for pattern_file, values in ours.items():
        what = (
            f"{pattern_file}  (model {values['model']}, run {options.variant}, task_pattern "
            f"{options.task_pattern or AUTO})"
        )
        if values in new_lines:
            out.append(f"registered {what}")
        else:
            out.append(f"unchanged  {REGISTRY} line {what}: already registered")
    return out


def _records(run: Run) -> list[pa.Table]:
    """The run's records as read (set by read_source_runs)."""
    assert run.records_table is not None
    return [run.records_table]


def _answered(landed: list[Run]) -> dict[str, set[str]]:
    """Task -> the languages its answers hold in the added runs."""
    answered: dict[str, set[str]] = {}
    for landed_run in landed:
        for a in _records(landed_run):
            pairs = zip(a.column("task").to_pylist(), a.column("language").to_pylist(), strict=True)
            for task, lang in pairs:
                answered.setdefault(task, set()).add(lang)
    return answered


def _run_lines(landed: list[Run]) -> list[str]:
    """One line per added run: its samples, tasks, languages, provenance, records set aside."""
    out = []
    for landed_run in sorted(landed, key=lambda r: r.run_id):
        aside, answers = landed_run.quarantine_table, _records(landed_run)
        assert aside is not None
        found = sorted({lang for a in answers for lang in a.column("language").to_pylist()})
        tasks = sorted({task for a in answers for task in a.column("task").to_pylist()})
        reasons = sorted(set(aside.column("reason").to_pylist()))
        row = landed_run.row
        shots = "-" if row["n_fewshot"] is None else row["n_fewshot"]
        out.append(
            f"run        {landed_run.run_id}: {sum(a.num_rows for a in answers)} samples, "
            f"task(s) {', '.join(tasks)}, language(s) {', '.join(found)}; revision "
            f"{row['model_revision'] or '-'}, {row['harness'] or '-'} "
            f"{row['harness_version'] or '-'}, "
            f"n-shot {shots}"
            + (f"; {aside.num_rows} set aside ({'; '.join(reasons)})" if aside.num_rows else "")
        )
    return out


def _language_notes(
    study: Study,
    landed: list[Run],
    answered: dict[str, set[str]],
    declared: TaskLanguages,
    override: set[str],
    options: Options,
) -> list[str]:
    """Notes on languages the build will set aside: outside ``mcq_languages`` (the var
    overrides every task's), or outside a task's declared languages, with what to run."""
    notes = []
    found = {lang for run in landed for a in _records(run)
             for lang in a.column("language").to_pylist()}  # fmt: skip
    outside = sorted(found - override) if override else []
    if outside:
        notes.append(
            f"language(s) {', '.join(outside)} not in mcq_languages "
            f"({', '.join(study.languages)}): their answers land in the run's quarantine "
            "(add them to mcq_languages in dbt_project.yml, or set it to [] so that each "
            "task compares its own languages)"
        )
    elif options.languages is not None and override:
        notes.append(
            "--languages is not written: mcq_languages in dbt_project.yml overrides every "
            "task's languages (set it to [] so that each task compares its own)"
        )
    for task, found_here in sorted(answered.items()):
        own, where = declared.of(task)
        beyond = sorted(found_here - set(own)) if own and not override else []
        if beyond:
            hinted = ",".join(sorted({*own, *beyond}))
            notes.append(
                f"task {task}: language(s) {', '.join(beyond)} not among its languages "
                f"({', '.join(own)}, declared by {where}): the build quarantines their answers "
                f"(to compare them: {options.importer.command} PATH --languages {hinted} "
                "--replace-languages)"
            )
    return notes


def remove_run(project_root: Path | str, run_id: str, *, delete_files: bool = False) -> list[str]:
    """``concord remove RUN_ID``: the landed cross-lingual run unregistered (its registry
    line: the wide file's, or the answer sources lines of its folder) and landed again, so
    its folder goes; its files moved out of the inputs folders (``<warehouse>/removed/<run
    id>/``: a file there without its line would be refused by the next landing), or deleted
    with ``delete_files``. The lines to print.
    Refused, naming them, where its source gives other runs too (one line registers them
    all). Holds the warehouse lock from its reads to its writes, as add does."""
    root = Path(project_root).resolve()
    landing = landing_dir(root)
    with warehouse_lock.held(landing, "concord remove", error=ConcordError):
        return _remove(root, landing, run_id, delete_files)


def _landed_runs(landing: Path) -> dict[str, dict]:
    """The landed cross-lingual runs: run id -> its row of ``runs``."""
    import pyarrow.parquet as pq

    rows = {}
    for path in sorted(landing.glob("mcq/run_id=*/runs.parquet")):
        for row in pq.read_table(path).to_pylist():
            rows[row["run_id"]] = row
    return rows


def _remove(root: Path, landing: Path, run_id: str, delete_files: bool) -> list[str]:
    from concord_io.landing import land
    from concord_io.landing.study import answer_sources

    study = load_study(root)
    runs = _landed_runs(landing)
    if run_id not in runs:
        raise ConcordError(
            f"run {printable(run_id)} is not landed in {landing / 'mcq'}",
            hint="`concord status` lists the landed runs and their ids",
        )
    run = runs[run_id]
    source = run["source_folder"]
    sharing = sorted(r for r, row in runs.items() if row["source_folder"] == source and r != run_id)
    if sharing:
        raise ConcordError(
            f"run {run_id} shares its source {printable(source)} with run(s) "
            f"{', '.join(sharing)}: one registry line gives them all",
            hint="remove the run's records from its files (then land), or remove every run "
            "of that source",
        )
    where = (root / source).resolve()
    out: list[str] = []
    if run["source_kind"] == "wide_csv":
        registry = "mcq_answer_registry"
        gone = [study.answers_dir / line.file for line in answer_registry(study)
                if (study.answers_dir / line.file).resolve() == where]  # fmt: skip
        drop = {("", path.name) for path in gone}
    else:
        registry = REGISTRY
        lines = [
            line
            for line in answer_sources(study)
            if any((Path(line.base or ".") / p).resolve().parent == where for p in line.paths)
        ]
        drop = {(line["folder"], line.file) for line in lines}
        gone = [study.sources_dir / p for line in lines if not line["folder"] for p in line.paths]
        if gone and run["source_kind"] == "lm_eval":
            gone += sorted(where.glob("results_*.json"))
        out += [f"kept         {printable(line['folder'])}  (registered in place: its files are "
                "yours, and stay)" for line in lines if line["folder"]]  # fmt: skip
    path, header, rows, ending = _registry(study, registry)
    kept = [row for row in rows if _key(row) not in drop]
    _write(inside(root, path, what="registry"), _registry_text(header, kept, ending).encode())
    out += [
        f"unregistered {registry} line {printable('/'.join(p for p in line if p))}"
        for line in sorted(drop)
    ]
    # a file of the inputs folders comes with its registry line: kept, it moves out of them
    aside = warehouse_dir() / "removed" / run_id
    for file in gone:
        if delete_files:
            file.unlink(missing_ok=True)
            out.append(f"deleted      {study.relative(file)}")
        elif file.is_file():
            moved = aside / study.relative(file).replace("/", "__")
            moved.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(file, moved)
            out.append(f"moved        {study.relative(file)} to {moved} (--delete-files deletes)")
    if gone and where.is_dir() and not any(where.iterdir()):
        where.rmdir()
    # landed again: the run's folder goes, as no longer registered, and so does its line
    return out + [line for line in land(root, landing).lines() if not line.startswith("unchanged")]
