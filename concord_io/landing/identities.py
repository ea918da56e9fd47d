"""Identities, each rule once (docs/landing.md, "Identities and codes"): item ids, language
tags, task and variant names, option orders and run ids."""

from __future__ import annotations

import hashlib
import json
import re

import langcodes

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
