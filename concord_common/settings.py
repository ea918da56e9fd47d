"""Every environment variable Concord reads, declared once: its name, default and meaning.

Python reads a variable through :func:`value`. dbt reads its own copy
(``env_var('NAME', 'default')`` in ``profiles.yml`` and ``dbt_project.yml``), and the
starter notebook one more; ``tests/python/test_settings_declared.py`` fails when a default
there differs from the one here, when a ``CONCORD_*`` name anywhere in the repository is not
declared here, or when ``docs/settings.md`` is not what ``python -m concord_common.settings``
prints.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


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
            "The landing folder: probe runs (and, with the reader, every input) as Parquet.",
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
            "DuckDB's memory limit during a build; beyond it DuckDB spills to disk.",
            parse_state=True,
        ),
        Setting(
            "CONCORD_SPARK_DIR",
            "warehouse/spark",
            "Spark's warehouse folder (<schema>.db/<table>/ Parquet) for dbt --target spark.",
            parse_state=True,
        ),
        Setting(
            "CONCORD_SPARK_PYTHON_RESULTS",
            "",
            "For dbt --target spark: the folder of the Python models' results written from a "
            "DuckDB build (concord_io.python_results).",
            parse_state=True,
        ),
        Setting(
            "CONCORD_SERVING",
            "warehouse/serving/concord.duckdb",
            "The serving file the starter notebook opens.",
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


def markdown() -> str:
    """The table of docs/settings.md."""
    lines = [
        "# Settings",
        "",
        "Every environment variable Concord reads, generated from `concord_common/settings.py`"
        " (`python -m concord_common.settings > docs/settings.md`). dbt vars (resamples, "
        "seeds, languages) are in `dbt_project.yml` under `vars:`, checked by "
        "`macros/run_settings.sql`.",
        "",
        "| variable | default | meaning |",
        "|---|---|---|",
    ]
    for s in SETTINGS.values():
        default = f"`{s.default}`" if s.default else "unset"
        lines.append(f"| `{s.name}` | {default} | {s.meaning} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
