"""Run the dbt project from Python: used by the tests, the benchmarks and the probe demo."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from concord_io.paths import PROJECT_ROOT

DBT = Path(sys.executable).parent / "dbt"
# what a dbt build needs; the venv, warehouse and target stay behind
PROJECT_PARTS = (
    "dbt_project.yml",
    ".dbtignore",
    "profiles.yml",
    "models",
    "macros",
    "seeds",
    "tests/dbt",
)


def dbt_invocation(
    args: list[str],
    project_dir: Path,
    database: Path,
    extra_env: dict[str, str] | None = None,
) -> tuple[list[str], dict[str, str]]:
    """The command line and environment that run dbt in ``project_dir`` against ``database``.

    Target and logs go beside the database file, and the landing folder defaults to
    ``landing/`` beside it, so a run never reads the probe results of the real warehouse.
    """
    work = Path(database).parent
    env = {**os.environ, "CONCORD_DB_PATH": str(database), **(extra_env or {})}
    env.setdefault("CONCORD_LANDING_DIR", str(work / "landing"))
    argv = [
        str(DBT),
        *args,
        "--profiles-dir",
        str(project_dir),
        "--project-dir",
        str(project_dir),
        "--target-path",
        str(work / "target"),
        "--log-path",
        str(work / "logs"),
    ]
    return argv, env


def run_dbt(
    args: list[str],
    project_dir: Path,
    database: Path,
    *,
    check: bool = True,
    extra_env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """Run dbt (see :func:`dbt_invocation`); raises with the end of its log when it fails."""
    argv, env = dbt_invocation(args, project_dir, database, extra_env)
    result = subprocess.run(
        argv, cwd=project_dir, env=env, capture_output=True, text=True, check=False
    )
    if check and result.returncode != 0:
        raise RuntimeError(f"dbt {' '.join(args)} failed:\n{result.stdout[-6000:]}")
    return result


def copy_project(destination: Path) -> Path:
    """A copy of the dbt project that a test or benchmark may change freely."""
    destination = Path(destination)
    for part in PROJECT_PARTS:
        source = PROJECT_ROOT / part
        target = destination / part
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination
