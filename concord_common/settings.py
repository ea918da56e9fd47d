"""Every environment variable Concord reads, declared once (name, default, meaning), and the
dbt vars a Python model reads, typed once.

Environment variables.

Python reads a variable through :func:`value`. dbt reads its own copy
(``env_var('NAME', 'default')`` in ``profiles.yml`` and ``dbt_project.yml``), and the
starter notebook one more; ``tests/python/test_settings_declared.py`` fails when a default
there differs from the one here, when a ``CONCORD_*`` name anywhere in the repository is not
declared here, or when ``docs/settings.md`` is not what ``python -m concord_common.settings``
prints.

dbt vars. They are declared here too (:data:`DBT_VARS`: default, meaning, and the type a
Python model reads), and ``vars:`` in ``dbt_project.yml`` is generated from them
(``python -m concord_common.settings --write``; a test fails when the two differ); their
allowed ranges are checked in ``macros/run_settings.sql`` before any model runs. dbt
Python models cannot call ``var()``, and dbt renders ``dbt_project.yml``'s configs before
the vars exist, so ``macros/python_model_vars.sql`` hands every Python model the vars in
:data:`VARS` as ``dbt.config.get("vars")`` (rendered at run time: ``--vars`` applies), and
the model reads them, typed, through :func:`dbt_vars`::

    n_resamples, seed = dbt_vars(dbt.config.get("vars"), "bootstrap_resamples", "bootstrap_seed")
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Setting:
    name: str
    default: str  # as the variable would hold it; "" means unset
    meaning: str
    parse_state: bool = False  # read by profiles.yml or dbt_project.yml: part of dbt's parse


SETTINGS = {
    s.name: s
    for s in (
        Setting(
            "CONCORD_DB_PATH",
            "warehouse/concord.duckdb",
            "The build database (relative paths from the project root). Serving, report and "
            "quality folders sit beside it; a path inside a serving folder is refused.",
            parse_state=True,
        ),
        Setting(
            "CONCORD_LANDING_DIR",
            "warehouse/landing",
            "The landing folder: probe runs and the cross-lingual inputs as Parquet.",
            parse_state=True,
        ),
        Setting(
            "CONCORD_THREADS",
            "2",
            "dbt threads, a whole number from 1 to 64; on Spark also the local cores and the "
            "shuffle partitions.",
            parse_state=True,
        ),
        Setting(
            "CONCORD_MEMORY_LIMIT",
            "700MB",
            "DuckDB's memory limit on every connection Concord opens to its own work (dbt, the "
            "reader, the quality checkpoint, publish); beyond it DuckDB spills to disk.",
        ),
        Setting(
            "CONCORD_SPARK_DIR",
            "warehouse/spark",
            "Spark's warehouse folder (<schema>.db/<table>/ Parquet) for dbt --target spark.",
            parse_state=True,
        ),
        Setting(
            "CONCORD_SPARK_MASTER",
            "",
            "The spark target's master: a cluster's (spark://host:7077 for a standalone "
            "master, yarn, k8s://...); empty: a local Spark of CONCORD_THREADS cores.",
            parse_state=True,
        ),
        Setting(
            "CONCORD_SPARK_SMALL_DATA",
            "",
            "1: the spark target tuned for small data and short jobs (a quick JIT, serial "
            "GC, expressions interpreted, no whole-stage codegen, no adaptive execution), as "
            "the tests set it; unset: Spark's own defaults, for real data (docs/spark.md).",
            parse_state=True,
        ),
        Setting(
            "CONCORD_SPARK_PYTHON",
            "",
            "Set to session by `concord build --target spark` (concord_io.spark) for its dbt "
            "call: dbt-spark then runs each Python model on its own SparkSession; empty: a "
            "plain dbt-spark, which cannot.",
        ),
        Setting(
            "CONCORD_SPARK_PYTHON_RESULTS",
            "",
            "For a plain dbt --target spark: the folder of the Python models' results written "
            "from a DuckDB build (concord_io.python_results), the old way; `concord build "
            "--target spark` runs them on Spark instead.",
            parse_state=True,
        ),
        Setting(
            "CONCORD_SERVING",
            "warehouse/serving/concord.duckdb",
            "The serving file the starter notebook opens.",
        ),
        Setting(
            "CONCORD_LANDED",
            "",
            "Set to 1 by `concord build` for the dbt build that follows its own land stage: "
            "the dbt plugin then does not land the inputs a second time.",
        ),
        Setting(
            "CONCORD_BUILD_CONTEXT",
            "",
            "Set by `concord build`'s dbt stage (concord_io.node_state): the context the "
            "incremental models' rows carry, narrowed to what they are made from, which the "
            "dbt plugin then hands to the models instead of the whole project's; on Spark "
            "(`concord build --target spark`) the whole project's, read by the models' "
            "macro. Unset on Spark, every run is computed again each build.",
        ),
        Setting(
            "CONCORD_WAREHOUSE_LOCK_FD",
            "",
            "Set by `concord build` for each stage's process, with the descriptor of the "
            "warehouse lock it holds passed on (`<descriptor>:<lock file>`): the stage holds "
            "the lock through the build's, which lasts from its landing to its end.",
        ),
        Setting(
            "DBT_PROJECT_DIR",
            "",
            "dbt's own variable, read by Concord's commands too: the project folder. Unset, a "
            "command works on the folder it runs in (or the nearest above it with a "
            "dbt_project.yml), never on the package's install location.",
        ),
        Setting(
            "CONCORD_DEBUG",
            "",
            "Any value but 0: failures show their traceback (as --debug does).",
        ),
        Setting(
            "CONCORD_TEST_CALL_LOG",
            "",
            "Tests only: a file that receives one line per dbt call or child process.",
        ),
    )
}


def value(name: str) -> str:
    """The variable's value without surrounding spaces, or its default when unset or empty."""
    return os.environ.get(name, "").strip() or SETTINGS[name].default


def _user_error(message: str, *, hint: str):
    from concord_common import UserError  # the package imports this module first

    return UserError(message, hint=hint)


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


@dataclass(frozen=True)
class DbtVar:
    name: str
    default: Any  # as dbt_project.yml holds it (a Jinja string where it reads a variable)
    meaning: str
    group: str
    kind: Callable[[Any], Any] | None = None  # the type a Python model reads it as


DBT_VARS = {
    v.name: v
    for v in (
        DbtVar("mcq_languages", [],
               "An override: the languages every task is compared in (an answer in another "
               "is set aside). Empty: each task its own, from seeds/mcq/mcq_task_languages.csv, "
               "else its item files, else every language its answers hold; a run is compared "
               "in its task's languages in which it has an answer.", "cross-lingual study",
               _names),
        DbtVar("mcq_options", ["A", "B", "C", "D"], "The option keys of the item and "
               "answer files, in presented-position order. A harness's task may have 2 to 26 "
               "choices: those beyond these take the letters A to Z not among them.",
               "cross-lingual study"),
        DbtVar("mcq_disagreement_types",
               ["full_agreement", "one_diverged", "majority", "no_majority"],
               "The disagreement types of a complete item, as docs/formulas.md defines them "
               "(a definition the models share, not a choice).", "cross-lingual study",
               _names),
        DbtVar("mcq_default_task", "xcloze",
               "The task of answers that name none (the wide merged files) and of the item "
               "files; the rater datasets derived from this task keep their 0.1 names.",
               "cross-lingual study"),
        DbtVar("mcq_baseline_variant", "base",
               "The prompt variant every other variant of the same model revision is compared "
               "with (the order effect).", "cross-lingual study"),
        DbtVar("mcq_pivot_language", "en",
               "The language every other language's agreement is reported against.",
               "cross-lingual study"),
        DbtVar("mcq_calibration_bins", 10,
               "Equal-width confidence bins of the expected calibration error, on the top "
               "option (concord_stats' default too).", "cross-lingual study"),
        DbtVar("mcq_answers_dir", "seeds/mcq/answers",
               "The wide merged answer files (mcq_answer_registry).", "cross-lingual study",
               _text),
        DbtVar("mcq_items_dir", "seeds/mcq/items", "The item files (mcq_item_files).",
               "cross-lingual study", _text),
        DbtVar("mcq_answer_sources_dir", "seeds/mcq/answer_sources",
               "Long-format answer files and lm-evaluation-harness sample logs "
               "(mcq_answer_sources).", "cross-lingual study"),
        DbtVar("bootstrap_resamples", 10000, "Resamples of every bootstrap interval.",
               "bootstrap, shared by every study", _whole),
        DbtVar("bootstrap_confidence", 0.95, "Coverage of every interval.",
               "bootstrap, shared by every study", _number),
        DbtVar("bootstrap_seed", 20250505, "The seed every random stream derives from.",
               "bootstrap, shared by every study", _whole),
        DbtVar("landing_dir", "{{ env_var('CONCORD_LANDING_DIR', 'warehouse/landing') }}",
               "The landing folder (CONCORD_LANDING_DIR, docs/landing.md): the probe's runs and "
               "the cross-lingual inputs as Parquet, which the staging models read; relative "
               "to the project folder.", "landing"),
        DbtVar("probe_baseline_group", "US", "The group every delta is taken against.",
               "probe"),
        DbtVar("probe_permutations", 10000, "Permutations of the paired tests.", "probe",
               _whole),
        DbtVar("spark_python_results_dir",
               "{{ env_var('CONCORD_SPARK_PYTHON_RESULTS', '') }}",
               "Spark target (open-source Spark runs no dbt Python model): the folder of the "
               "Python models' results written from a DuckDB build "
               "(python -m concord_io.python_results).", "Spark"),
    )
}  # fmt: skip

# Every var a Python model may read, with its type; the macro passes exactly these.
VARS: dict[str, Callable[[Any], Any]] = {n: v.kind for n, v in DBT_VARS.items() if v.kind}


def _yaml_value(value: Any) -> str:
    # JSON is YAML: lists in flow style, strings quoted only where YAML needs it
    if isinstance(value, str) and value and all(c.isalnum() or c in "/_.-" for c in value):
        return value
    return json.dumps(value)


def project_vars_yaml() -> str:
    """The ``vars:`` block of dbt_project.yml, generated from :data:`DBT_VARS`."""
    lines = [
        "# Generated from concord_common/settings.py (DBT_VARS): edit there, then run",
        "# python -m concord_common.settings --write",
        "vars:",
    ]
    group = None
    for v in DBT_VARS.values():
        if v.group != group:
            lines.append(f"  # {v.group}")
            group = v.group
        lines.append(f"  {v.name}: {_yaml_value(v.default)}")
    return "\n".join(lines) + "\n"


# the header comment lines, `vars:` and its indented lines: never past the block
VARS_BLOCK = re.compile(
    r"^# Generated from concord_common/settings\.py[^\n]*\n(?:#[^\n]*\n)*vars:\n(?:  [^\n]*\n)*",
    re.MULTILINE,
)


def write_project_vars(project_file: Path) -> bool:
    """Rewrite the vars block of ``project_file``; True when it changed."""
    text = project_file.read_text(encoding="utf-8")
    new, n = VARS_BLOCK.subn(project_vars_yaml(), text, count=1)
    if n != 1:
        raise ValueError(f"{project_file}: no generated vars block to replace")
    if new != text:
        project_file.write_text(new, encoding="utf-8")
    return new != text


def dbt_vars(passed: Mapping[str, Any] | None, *names: str) -> tuple[Any, ...]:
    """The vars ``names`` from ``passed`` (``dbt.config.get("vars")``), typed.

    Raises :class:`concord_common.UserError` naming the var when it was not passed or has a
    value of the wrong type (a resample count of ``"ten"`` or ``2.5``). Ranges (a confidence
    of 95) were checked before the run began (``macros/run_settings.sql``).
    """
    if passed is None:
        raise _user_error(
            "this Python model received no dbt vars",
            hint="macros/python_model_vars.sql passes them; check it still wraps "
            "dbt's build_config_dict",
        )
    values = []
    for name in names:
        if name not in VARS:
            raise _user_error(
                f"var {name!r} is not one the Python models read",
                hint="add it to VARS in concord_common/settings.py and to "
                "macros/python_model_vars.sql",
            )
        if name not in passed:
            raise _user_error(
                f"var {name!r} was not passed to this Python model",
                hint="list it in macros/python_model_vars.sql",
            )
        check = VARS[name]
        try:
            values.append(check(passed[name]))
        except (TypeError, ValueError, SyntaxError):
            raise _user_error(
                f"var {name} must be {check.__doc__}, got {passed[name]!r}",
                hint="set it in dbt_project.yml (vars:) or with dbt --vars",
            ) from None
    return tuple(values)


def markdown() -> str:
    """docs/settings.md."""
    lines = [
        "# Settings",
        "",
        "Every setting Concord reads, generated from `concord_common/settings.py` "
        "(`python -m concord_common.settings --write` writes this page and the `vars:` block "
        "of `dbt_project.yml`).",
        "",
        "## Environment variables",
        "",
        "| variable | default | meaning |",
        "|---|---|---|",
    ]
    for s in SETTINGS.values():
        default = f"`{s.default}`" if s.default else "unset"
        lines.append(f"| `{s.name}` | {default} | {s.meaning} |")
    lines += [
        "",
        "## dbt vars",
        "",
        "Set in `dbt_project.yml` (generated) or per run with `dbt build --vars '{name: value}'`;",
        "a var the project does not declare, or a value out of its range, stops the run",
        "before any model (`macros/run_settings.sql`).",
        "",
        "| var | default | meaning |",
        "|---|---|---|",
    ]
    for v in DBT_VARS.values():
        default = json.dumps(v.default) if not isinstance(v.default, str) else v.default
        lines.append(f"| `{v.name}` | `{default}` | {v.meaning} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        root = Path(__file__).resolve().parents[1]
        write_project_vars(root / "dbt_project.yml")
        (root / "docs" / "settings.md").write_text(markdown(), encoding="utf-8")
    else:
        print(markdown(), end="")
