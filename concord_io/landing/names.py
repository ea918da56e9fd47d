"""Identities, each rule once (docs/landing.md, "Identities and codes"): item ids, language
tags, task and variant names, option orders and run ids.

lm-eval task names: the task and language of a sample log, read from its harness task
name by a registry line's ``task_pattern`` (docs/landing.md, "lm-eval task names"): ``auto``
(the one language tag in the name, wherever it stands), or a pattern with ``{lang}``
(``xcopa_{lang}``). The text after the language stays part of the task: a benchmark's
subtasks number their documents from 0 each.

The answer text LLM pipelines write, as the item's own option key (``chosen_option``), or
why it is none (``invalid_reason``), in one SQL pass (DuckDB, over Arrow).

Accepted: a bare option key, a letter in any case with padding, markdown emphasis or quotes
(`` b ``, ``**B**``), a letter with a bracket or full stop (``B)``, ``(B)``, ``B.``), a
labelled letter (``Answer: B``, ``Option B``), and the text of exactly one of the options as
presented (case and runs of blanks ignored). The letter is the presented one: the presented
order (``DCBA``: presented A is the item's D) gives the item's own key.

Reasons (published downstream: ``dq_quarantine`` says ``mcq answer <reason>``):
``empty``, ``letter_out_of_range`` (a letter that is no option, ``E``), ``pipeline_error``
(the text of a failed call: invalid, error, fail, retr(y), timeout, n/a) and ``unrecognised``."""

from __future__ import annotations

import hashlib
import json
import re

import langcodes

from concord_common.sql import sql_literal
from concord_io.errors import ConcordError, printable

#: An item id that a reader may still take as a number: a canonical positive whole number,
#: at most the largest bigint (what a notebook's int64 or a BI tool's integer holds without
#: rounding). Text is never cast or rounded: `05`, `7.6`, `-1` and `1e3` are refused.
ITEM_ID_SQL_PATTERN = "^[1-9][0-9]*$"
ITEM_ID_MAX = 2**63 - 1


def item_id_broken(expression: str) -> str:
    """SQL: the item id ``expression`` is not one (:data:`ITEM_ID_SQL_PATTERN`, at most
    :data:`ITEM_ID_MAX`)."""
    return (
        f"(not regexp_full_match(coalesce({expression}, ''), '{ITEM_ID_SQL_PATTERN}') "
        f"or try_cast({expression} as bigint) is null)"
    )


RUN_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
#: A task or variant name: ASCII letters, digits, ``_``, ``-`` and ``.`` (what a run id's
#: slug, a folder name and a mart key carry as they are), with at least one letter or digit
#: (``.`` and ``..`` name folders of their own). One rule, in Python and in SQL.
NAME_SQL_PATTERN = "^[A-Za-z0-9_.-]*[A-Za-z0-9][A-Za-z0-9_.-]*$"
NAME_PATTERN = re.compile(NAME_SQL_PATTERN)
NAME_RULE = "letters, digits, _, - and . only, with a letter or digit"
NAME_HINT = "name it with letters, digits, _, - and . (xcloze, fewshot-5, cot_v1.2)"
#: The variants of the wide merged files and the item files: their registries pair a
#: model's base run with its shuffled (order-control) run.
VARIANTS = ("base", "shuffled")


def item_id_refused(where: str, value: object, column: str = "item_id") -> ConcordError:
    return ConcordError(
        f"{where}, column {column}: {printable(repr(value))} is not a canonical positive "
        f"whole number up to {ITEM_ID_MAX} (item ids are text compared byte for byte: 05, "
        "7.6 and -1 are refused, never rounded or cast)",
        hint="write the item's row position in the item files (1, 2, ...)",
    )


def canonical_language(tag: str, where: str, column: str = "language") -> str:
    """``tag`` as ``langcodes.standardize_tag`` gives it after ``_`` -> ``-`` (``EN`` -> ``en``,
    ``eng_Latn`` -> ``en``, ``pes`` stays ``pes``); refused when langcodes rejects it."""
    candidate = tag.strip().replace("_", "-")
    if not candidate or not langcodes.tag_is_valid(candidate):
        raise ConcordError(
            f"{where}, column {column}: {printable(repr(tag))} is not a valid language tag",
            hint="use a BCP 47 tag such as en, it, fa, en-US, zh-Hant or pes",
        )
    return str(langcodes.standardize_tag(candidate))


def check_name(value: str, where: str, column: str) -> str:
    """A task or variant (docs/landing.md): refused unless :data:`NAME_PATTERN` matches."""
    if not NAME_PATTERN.fullmatch(value):
        raise ConcordError(
            f"{where}: {column} {printable(repr(value))} is not a name ({NAME_RULE})",
            hint=NAME_HINT,
        )
    return value


def check_model_name(name: str, where: str, *, hint: str) -> str:
    """A model's name as a registry line carries it and the marts show it: any text on one
    line (spaces and punctuation allowed, as in "Qwen2.5 14B"), not blank; without the
    blanks around it."""
    if not name.strip() or any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise ConcordError(
            f"{where} {printable(repr(name))} is not a model name (blank, or a control character)",
            hint=hint,
        )
    return name.strip()


def check_variant(value: str, where: str, column: str = "run") -> str:
    """A wide file's run or an item file's variant: base or shuffled."""
    if value not in VARIANTS:
        raise ConcordError(
            f"{where}: {column} {printable(value)} is not base or shuffled",
            hint="base, or shuffled for the order-control run",
        )
    return value


def check_option_order(order: str, options: list[str], where: str) -> str:
    """The original option keys in the order they were presented (``DCBA``)."""
    if sorted(order) != sorted(options) or len(order) != len(options):
        raise ConcordError(
            f"{where}: presented_option_order {printable(order)} is not a permutation of "
            f"{''.join(options)}",
            hint=f"write each original option once, in the order shown as {', '.join(options)}",
        )
    return order


def slug(text: str, limit: int) -> str:
    """Lower-case letters, digits, '.', '_' and '-' (other characters become '-')."""
    value = re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-._")[:limit].strip("-._")
    return value or "x"


def run_id(model: str, revision: str | None, variant: str, source_folder: str) -> str:
    """``<model slug>--<variant slug>--<8 hex>``, the hash over what identifies the run: the
    same source read again finds the same run."""
    digest = hashlib.sha256(
        json.dumps([model, revision, variant, source_folder], ensure_ascii=False).encode()
    ).hexdigest()[:8]
    value = f"{slug(model, 80)}--{slug(variant, 32)}--{digest}"
    assert RUN_ID_PATTERN.match(value), value
    return value


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


def too_many_choices(presented_order: str, keys: str) -> str:
    """Why a harness's sample cannot be an answer: it has more choices than the keys
    (``keys``: the line's ``presented_order``, a permutation of mcq_options, else the
    study's option keys, A to Z)."""
    if presented_order:
        return f"more choices than presented_option_order {presented_order} names"
    return f"more than {len(keys)} choices"


def without_language(harness_task: str, language: str) -> str:
    """A harness's task name less a trailing ``_<language>`` (as written, or with ``_`` for
    ``-``): ``xcloze_en`` with ``en`` is ``xcloze``; a name without it stays whole."""
    for suffix in {language, language.replace("-", "_")}:
        if harness_task.lower().endswith("_" + suffix.lower()):
            return harness_task[: -len(suffix) - 1]
    return harness_task


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


REASONS = ("empty", "letter_out_of_range", "pipeline_error", "unrecognised")
LETTER_PATTERN = r"^(?:(?:ANSWER|OPTION|CHOICE|RISPOSTA)\s*[:.\-]?\s*)?\(?([A-Z])\)?[.):]?$"
PIPELINE_ERROR_PATTERN = r"(invalid|error|fail|retr|timeout|n/a)"


def _text_key(expression: str) -> str:
    """Text compared case- and blank-insensitively."""
    return f"lower(trim(regexp_replace(coalesce({expression}, ''), '\\s+', ' ', 'g')))"


def normalised(relation: str, options: list[str]) -> str:
    """``relation`` (columns ``raw_answer``, ``presented_order`` and ``text_1`` ...
    ``text_<n>``, the option texts in presented order, null where not known) with
    ``chosen_option`` and ``invalid_reason`` added."""
    keys = ", ".join(sql_literal(option) for option in options)
    all_keys = sql_literal("".join(options))
    text_keys = [_text_key(f"text_{i}") for i in range(1, len(options) + 1)]
    matches = " + ".join(f"(answer_key = {key})::int" for key in text_keys)
    by_text = "\n".join(
        f"            when answer_key = {key} then {sql_literal(option)}"
        for key, option in zip(text_keys, options, strict=True)
    )
    return f"""
    with keyed as (
        select
            *,
            case
                when raw_answer in ({keys}) then raw_answer
                else regexp_extract(
                    upper(trim(regexp_replace(
                        coalesce(raw_answer, ''), '[\\s*_`"'']+', ' ', 'g'))),
                    {sql_literal(LETTER_PATTERN)},
                    1
                )
            end as letter_form,
            case
                when raw_answer in ({keys}) then lower(raw_answer)
                else {_text_key("raw_answer")}
            end as answer_key
        from {relation}
    ),
    presented as (
        select
            *,
            case
                when letter_form in ({keys}) then letter_form
                when letter_form <> '' or answer_key = '' then null
                when {matches} <> 1 then null
{by_text}
            end as presented_answer
        from keyed
    )
    select
        * exclude (letter_form, answer_key, presented_answer),
        -- presented A is the first key of the presented order
        case
            when presented_answer is not null
                then substr(presented_order, strpos({all_keys}, presented_answer), 1)
        end as chosen_option,
        case
            when presented_answer is not null then null
            when answer_key = '' then 'empty'
            when letter_form <> '' then 'letter_out_of_range'
            when regexp_matches(answer_key, {sql_literal(PIPELINE_ERROR_PATTERN)})
                then 'pipeline_error'
            else 'unrecognised'
        end as invalid_reason
    from presented
    """
