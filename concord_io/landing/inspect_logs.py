"""Inspect AI evaluation logs (``.eval`` or ``.json``, docs/landing.md "Inspect AI logs"):
each sample of a multiple-choice task that inspect-ai's ``choice()`` scorer scored, as one
record of the answers' declared columns, read through inspect-ai's own log API (the
``inspect`` extra; the format is inspect-ai's, so its reader is too).

A log is one task of one model. The task is the log's (``inspect_evals/arc_easy`` is
``arc_easy``), less its language as lm-eval's are; the language is the sample's metadata
``language``, else the registry line's, else read from the task name by the line's
``task_pattern``. The choices are keyed as a sample log's (``Study.option_keys``: 2 to 26
of them); the option chosen is the letter ``choice()`` read from the output (its
``answer``), the gold its ``target``.

Epochs: a sample run several times counts once, as the log's own reducer counted it
(``log.reductions``): a reduced score of 1 (``C``) is the gold, one of 0 (``I``) the letter
the epochs gave most often that is not the gold (the first of them on a tie), so accuracy
and its standard error equal the log's. A mean of epochs that disagree (0.67 of 3) is no one
answer: the sample is set aside with that reason (reduce with ``mode`` to count it). A
sample that errored, or that ``choice()`` did not score, is set aside with its reason."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from concord_io.errors import ConcordError, printable
from concord_io.landing import schemas
from concord_io.landing.names import (
    ITEM_ID_MAX,
    canonical_language,
    check_name,
    split_task,
    too_many_choices,
    without_language,
)
from concord_io.landing.schemas import Line, Study
from concord_io.landing.sources import SourceFile, with_domains

#: The scorer of a multiple-choice task (inspect_ai.scorer.choice) and the values it gives.
SCORER = "choice"
VALUES = {"C": 1.0, "I": 0.0}
HARNESS = "inspect_ai"
#: A sample's record: the answers' declared columns (less the run's id and the domain, which
#: ``with_domains`` adds) with the run's model, variant and presented order, and the
#: sample's own domain label.
RECORDS = pa.schema(
    [pa.field(name, pa.string()) for name in ("model", "variant", "presented_order")]
    + [f for f in schemas.ANSWERS if f.name not in ("run_id", "domain_label", "domain")]
    + [pa.field("sample_domain", pa.string())]
)
INSTALL_HINT = (
    "install it beside the warehouse: make inspect-install (inspect-ai 0.3.285, without the "
    "dependencies it would move)"
)


@dataclass(frozen=True)
class LogRun:
    """What the log says of its run: the model, its revision (``model_args``), inspect-ai's
    version and the task as the log names it."""

    model: str
    revision: str | None
    harness_version: str | None
    harness_task: str


def _log_api() -> Any:
    try:
        import inspect_ai.log as log_api
    except ImportError as error:
        raise ConcordError(
            "reading Inspect AI logs (format inspect) needs inspect-ai, which is not installed",
            hint=INSTALL_HINT,
        ) from error
    return log_api


def read_eval_log(path: Path, name: str, *, header_only: bool = False) -> Any:
    """The log at ``path`` (``name``: as messages say it), by inspect-ai's own reader; its
    header alone with ``header_only``. Refused where it is no log, or was not scored by
    ``choice()``."""
    try:
        log = _log_api().read_eval_log(str(path), header_only=header_only)
    except (ValueError, OSError, KeyError) as error:  # a zip or JSON that is not a log
        # pydantic's message: what failed, where and why, over three lines
        said = "; ".join(part.strip() for part in str(error).splitlines()[:3])
        raise ConcordError(
            f"{printable(name)}: not an Inspect AI log inspect-ai can read ({said})",
            hint="register the .eval or .json files inspect eval wrote, as it wrote them",
        ) from None
    scorers = {s.name for s in log.results.scores} if log.results is not None else {SCORER}
    if SCORER not in scorers:
        raise ConcordError(
            f"{printable(name)}: the log was not scored by {SCORER}() (scorers: "
            f"{', '.join(sorted(scorers)) or 'none'})",
            hint="register the logs of multiple-choice tasks (multiple_choice() solver, "
            "choice() scorer)",
        )
    return log


def log_run(log: Any, model: str = "") -> LogRun:
    """The log's run; ``model`` (a registry line's), where given, names it instead."""
    spec = log.eval
    revision = (spec.model_args or {}).get("revision")
    return LogRun(
        model=model or spec.model,
        revision=None if revision is None else str(revision),
        harness_version=(spec.packages or {}).get("inspect_ai"),
        harness_task=spec.task.rpartition("/")[2],
    )


def _task_language(run: LogRun, line: Line, language: str | None, where: str) -> tuple[str, str]:
    """The study's task and the canonical language of a sample (its metadata's ``language``,
    else the line's, else the task name by the line's ``task_pattern``)."""
    if not language and line["task_pattern"]:
        task, canonical = split_task(
            run.harness_task, line["task_pattern"], where, "set the task_pattern of its line"
        )
    else:
        if not (language or line["language"]):
            raise ConcordError(
                f"{where}: the sample names no language (metadata language) and the log's line "
                "gives none",
                hint="give the line a language or a task_pattern, or each sample a "
                "metadata language",
            )
        written = language or line["language"]
        canonical = canonical_language(written, where)
        task = without_language(run.harness_task, written)
    check_name(task, f"{where} (the log's task)", "task")
    return line["task"] or task, canonical


def _item_id(sample: Any, item_key: str, where: str) -> str:
    """The sample's item: its id, or the metadata field ``item_key`` names; a canonical
    positive whole number, as every item id is."""
    value = sample.id if item_key == "id" else (sample.metadata or {}).get(item_key)
    text = str(value)
    if isinstance(value, bool) or not text.isdigit() or text.startswith("0"):
        raise ConcordError(
            f"{where}: {item_key} {printable(repr(value))} is not a canonical positive whole "
            f"number up to {ITEM_ID_MAX} (item ids pair a task's samples across languages)",
            hint="give the samples the items' numbers as ids (1, 2, ...), or name the "
            "metadata field that holds them in the line's item_key",
        )
    if int(text) > ITEM_ID_MAX:
        raise ConcordError(f"{where}: {item_key} {text} is beyond {ITEM_ID_MAX}")
    return text


def _reduced(log: Any) -> dict[object, object]:
    """Each sample id's score as the log's reducer made it, where the log ran epochs."""
    if (log.eval.config.epochs or 1) <= 1:
        return {}
    reducers = [s.reducer for s in (log.results.scores if log.results else []) if s.name == SCORER]
    for reduction in log.reductions or []:
        if reduction.scorer == SCORER and reduction.reducer == (reducers or [None])[0]:
            return {sample.sample_id: sample.value for sample in reduction.samples}
    return {}


def _letter(answer: object, n_choices: int) -> int | None:
    """The presented position (1-based) of ``choice()``'s answer, None when it is no
    single letter among the sample's choices."""
    text = str(answer or "").strip().upper()
    if len(text) == 1 and "A" <= text <= "Z" and ord(text) - 64 <= n_choices:
        return ord(text) - 64
    return None


def _not_a_letter(score: Any) -> str:
    """Why ``choice()``'s answer is no option (a reason every reader's answers use): an
    empty output, or one it read no single choice from (no ``ANSWER:`` line, a letter
    beyond the choices, several letters)."""
    return "unrecognised" if str(score.explanation or "").strip() else "empty"


def _pick(epochs: list[Any], reduced: object, target: int | None) -> tuple[int | None, str]:
    """The presented position the sample's epochs count as, and the reason where none does
    (a sample's score reduced over epochs, ``reduced``; None: one epoch)."""
    letters = [_letter(e.scores[SCORER].answer, len(e.choices or [])) for e in epochs]
    if reduced is None:
        return letters[0], "" if letters[0] else _not_a_letter(epochs[0].scores[SCORER])
    value = VALUES.get(str(reduced), reduced)
    if value == 1.0 and target is not None:
        return target, ""
    if value == 0.0:
        wrong = Counter(p for p in letters if p is not None and p != target)
        if wrong:
            return max(wrong, key=lambda p: (wrong[p], -letters.index(p))), ""
        return None, "unrecognised"
    return None, (
        f"epochs disagree: the log's reducer gives {reduced!r} of {len(epochs)}, no one answer "
        "(reduce with mode to count it)"
    )


def _set_aside(sample: Any) -> str:
    """Why the sample is not an answer at all ('' where it is one)."""
    if sample.error is not None:
        message = str(getattr(sample.error, "message", sample.error)).strip().splitlines()
        return "sample errored: " + (message[0] if message else "no message")
    if not sample.choices:
        return "not a multiple-choice sample (no choices)"
    if SCORER not in (sample.scores or {}):
        return f"not scored by {SCORER}()"
    return ""


def _record(study: Study, line: Line, run: LogRun, epochs: list[Any], row: int,
            reduced: dict, source: SourceFile) -> dict:  # fmt: skip
    """One sample (its epochs) as an answer record, before its domain."""
    first = epochs[0]
    where = f"{printable(source.name)}: sample {printable(repr(first.id))}"
    order = line["presented_option_order"] or study.option_keys
    metadata = first.metadata or {}
    task, language = _task_language(run, line, metadata.get("language"), where)
    n_choices = len(first.choices or [])
    target = _letter(first.target if isinstance(first.target, str) else "", n_choices)
    aside = next((reason for reason in map(_set_aside, epochs) if reason), "")
    if not aside and n_choices > len(order):
        aside = too_many_choices(line["presented_option_order"], order)
    position, reason = (None, aside) if aside else _pick(epochs, reduced.get(first.id), target)
    answers = [str(e.scores[SCORER].answer or "") for e in epochs] if not aside else []
    domain = metadata.get(line["domain_field"] or "domain")
    return {
        "model": run.model,
        "variant": line["run"],
        "presented_order": order,
        "task": task,
        "item_id": _item_id(first, line["item_key"] or "id", where),
        "language": language,
        "chosen_option": order[position - 1] if position else None,
        "raw_answer": " ".join(answers),
        "invalid_reason": reason or None,
        "gold_option": order[target - 1] if target and not aside else None,
        "n_choices": n_choices,
        "source_column": f"scores.{SCORER}",
        "source_file": source.name,
        "source_row": row,
        "content_hash": source.content_hash,
        "sample_domain": None if domain is None else str(domain).strip() or None,
    }


def read_log(
    con: duckdb.DuckDBPyConnection, study: Study, line: Line, source: SourceFile
) -> tuple[pa.Table, LogRun]:
    """The log's answers, one record per sample (its epochs reduced), in the order of the
    samples' first epochs, with ``model``, ``variant`` and ``presented_order``; the domain
    of each item as a sample log's (``with_domains``); and the log's run."""
    log = read_eval_log(source.path, source.name)
    run = log_run(log, line["model"])
    by_sample: dict[object, list[Any]] = {}
    for sample in log.samples or []:
        by_sample.setdefault(sample.id, []).append(sample)
    reduced = _reduced(log)
    records = [
        _record(study, line, run, sorted(epochs, key=lambda e: e.epoch), row, reduced, source)
        for row, epochs in enumerate(by_sample.values(), start=1)
    ]
    table = pa.Table.from_pylist(records, schema=RECORDS)
    con.register("inspect_records", table)
    answers = con.sql(with_domains("select * from inspect_records")).to_arrow_table()
    con.unregister("inspect_records")
    return answers, run
