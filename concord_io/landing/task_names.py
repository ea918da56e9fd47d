"""lm-eval task names: the task and language of a sample log, read from its harness task
name by a registry line's ``task_pattern`` (docs/landing.md, "lm-eval task names"): ``auto``
(the one language tag in the name, wherever it stands), or a pattern with ``{lang}``
(``xcopa_{lang}``). The text after the language stays part of the task: a benchmark's
subtasks number their documents from 0 each."""

from __future__ import annotations

import re

import langcodes

from concord_io.errors import ConcordError, printable
from concord_io.landing.identities import canonical_language

#: The task_pattern that finds the language wherever it stands in a task name.
AUTO = "auto"
LANG = "{lang}"
PATTERN_TEXT = re.compile(r"^[A-Za-z0-9_.-]*$")
#: A language in a harness task name: a lower-case ISO 639 code, then its script, region
#: and variant parts in their standard case (``fra_Latn``, ``zh_TW``, ``es_419``,
#: ``ca_ES_valencia``, ``de_1996``: ``probe mcq`` writes a canonical tag's ``-`` as ``_``).
#: The case keeps a region (``TW``) from being read as a language (``tw``, Twi); a variant
#: is taken only where it is a registered one (langcodes), so ``_train`` stays the task's.
PRIMARY = re.compile(r"^[a-z]{2,3}$")
SUBTAG = re.compile(r"^(?:[A-Z][a-z]{3}|[A-Z]{2}|[0-9]{3}|[a-z0-9]{5,8}|[0-9][a-z0-9]{3})$")


def check_task_pattern(pattern: str, where: str) -> str:
    """``auto``, or a pattern with ``{lang}`` once, preceded by ``_`` or the start and
    followed by ``_`` or the end, in the characters of harness task names."""
    head, _, tail = pattern.partition(LANG)
    if pattern == AUTO or (
        pattern.count(LANG) == 1
        and PATTERN_TEXT.match(head + tail)
        and (not head or head.endswith("_"))
        and (not tail or tail.startswith("_"))
        and (head or tail)
    ):
        return pattern
    raise ConcordError(
        f"{where}: task_pattern {printable(pattern)} is not auto or a task name with {LANG} "
        "once, between _ (e.g. xcopa_{lang}, global_mmlu_full_{lang})",
        hint="write where the language stands in the harness's task names, or auto",
    )


def _language_lengths(parts: list[str], start: int) -> list[int]:
    """How many ``_``-separated parts from ``start`` make a valid language tag (a code,
    then script and region parts), longest first; [] when none does."""
    if start >= len(parts) or not PRIMARY.match(parts[start]):
        return []
    lengths = []
    for end in range(start + 1, len(parts) + 1):
        if end > start + 1 and not SUBTAG.match(parts[end - 1]):
            break
        if langcodes.tag_is_valid("-".join(parts[start:end])):
            lengths.append(end - start)
    return lengths[::-1]


def _without_language(parts: list[str], start: int, length: int) -> str:
    # the task name less its language and the `_` beside it; the text after it stays
    return "_".join(parts[:start] + parts[start + length :])


def split_task(harness_task: str, pattern: str, where: str, remedy: str) -> tuple[str, str]:
    """The task (without its language) and the canonical language of ``harness_task``
    by ``pattern`` (``auto`` or ``xcopa_{lang}``); refused, naming ``where``, where the name
    holds no language there, or (auto) more than one; ``remedy`` starts the hint (what to
    pass: ``--task-pattern``, or the registry line's ``task_pattern``)."""
    parts = harness_task.split("_")
    found: list[tuple[int, int]] = []
    if pattern == AUTO:
        start = 0
        while start < len(parts):  # a loop per part of one task name
            lengths = _language_lengths(parts, start)
            if lengths:
                found.append((start, lengths[0]))
                start += lengths[0]
            else:
                start += 1
        if len(found) > 1:
            tags = " and ".join("_".join(parts[s : s + n]) for s, n in found)
            raise ConcordError(
                f"{where}: task {printable(harness_task)} holds more than one language tag "
                f"({printable(tags)}): which is its language is not for Concord to guess",
                hint=f"{remedy} saying where the language stands: "
                + " or ".join(_example(parts, at) for at in found),
            )
    else:
        head, _, tail = pattern.partition(LANG)
        start = head.count("_")
        if harness_task.startswith(head):
            for length in _language_lengths(parts, start):
                rest = "_".join(parts[start + length :])
                rest = "_" + rest if rest else ""
                if rest.startswith(tail) and rest[len(tail) : len(tail) + 1] in ("", "_"):
                    found.append((start, length))
                    break
    if not found:
        raise ConcordError(
            f"{where}: task {printable(harness_task)} has no language tag where task_pattern "
            f"{printable(pattern)} looks for one (a code such as it, fra_Latn or zh_TW)",
            hint=(
                f"{remedy} saying where the language stands (e.g. xcopa_{LANG} for xcopa_it); "
                "a task in one language only is no cross-lingual comparison: leave its logs out"
                if pattern == AUTO
                else f"{remedy} that matches the harness's task names, or auto"
            ),
        )
    start, length = found[0]
    task = _without_language(parts, start, length)
    if not task:
        raise ConcordError(
            f"{where}: task {printable(harness_task)} is only a language: no task name is left",
            hint="rename the task in the harness (e.g. xcopa_it)",
        )
    tag = "_".join(parts[start : start + length])
    return task, canonical_language(tag, where)


def _example(parts: list[str], at: tuple[int, int]) -> str:
    """The shortest pattern that puts the language at ``at``."""
    start, length = at
    if start:
        return "_".join([*parts[:start], LANG])
    return "_".join([LANG, *parts[length : length + 1]])
