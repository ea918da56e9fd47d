"""The dbt vars a Python model reads, typed in one place.

dbt Python models cannot call ``var()``, and dbt renders the configs in ``dbt_project.yml``
before the project's vars exist, so a project-level ``+config`` cannot carry them either.
``macros/python_model_vars.sql`` therefore hands every Python model the vars listed in
:data:`VARS` as ``dbt.config.get("vars")`` (rendered at run time, so ``--vars`` overrides
apply), and the model reads them through :func:`dbt_vars`::

    n_resamples, seed = dbt_vars(dbt.config.get("vars"), "bootstrap_resamples", "bootstrap_seed")

The vars themselves are declared once, in ``dbt_project.yml``, and their allowed ranges
once, in ``macros/run_settings.sql``, which checks every var before any model runs (dbt's
on-run-start). Here they are only given their Python types.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import Any

from concord_io.errors import ConcordError


def _whole(value: Any) -> int:
    """a whole number"""
    if isinstance(value, bool):  # int(True) is 1: a flag is not a count
        raise ValueError
    return int(str(value).strip())


def _number(value: Any) -> float:
    """a number"""
    if isinstance(value, bool):
        raise ValueError
    return float(str(value).strip())


def _names(value: Any) -> list[str]:
    """a list of names"""
    if isinstance(value, str):  # "--vars '{x: [a, b]}'" arrives as a list, "a,b" as text
        text = value.strip()
        value = ast.literal_eval(text) if text.startswith("[") else text.split(",")
    if not isinstance(value, list | tuple):
        raise ValueError
    return [str(item).strip() for item in value]


def _text(value: Any) -> str:
    """a text"""
    if not isinstance(value, str):
        raise ValueError
    return value.strip()


# Every var a Python model may read, with its type; the macro passes exactly these.
VARS: dict[str, Callable[[Any], Any]] = {
    "bootstrap_resamples": _whole,
    "bootstrap_confidence": _number,
    "bootstrap_seed": _whole,
    "probe_permutations": _whole,
    "mcq_languages": _names,
    "mcq_disagreement_types": _names,
    "mcq_answers_dir": _text,
    "mcq_items_dir": _text,
}


def dbt_vars(passed: Mapping[str, Any] | None, *names: str) -> tuple[Any, ...]:
    """The vars ``names`` from ``passed`` (``dbt.config.get("vars")``), typed.

    Raises :class:`ConcordError` naming the var when it was not passed or has a value of the
    wrong type (a resample count of ``"ten"`` or ``2.5``). Ranges (a confidence of 95) were
    checked before the run began (``macros/run_settings.sql``).
    """
    if passed is None:
        raise ConcordError(
            "this Python model received no dbt vars",
            hint="macros/python_model_vars.sql passes them; check it still wraps "
            "dbt's build_config_dict",
        )
    values = []
    for name in names:
        if name not in VARS:
            raise ConcordError(
                f"var {name!r} is not one the Python models read",
                hint="add it to VARS in concord_io/settings.py and to macros/python_model_vars.sql",
            )
        if name not in passed:
            raise ConcordError(
                f"var {name!r} was not passed to this Python model",
                hint="list it in macros/python_model_vars.sql",
            )
        check = VARS[name]
        try:
            values.append(check(passed[name]))
        except (TypeError, ValueError, SyntaxError):
            raise ConcordError(
                f"var {name} must be {check.__doc__}, got {passed[name]!r}",
                hint="set it in dbt_project.yml (vars:) or with dbt --vars",
            ) from None
    return tuple(values)
