"""Land the seed files and the cross-lingual study's inputs: ``python -m concord_io.landing``.

Reads every seed file (``seeds/<study>/*.csv``, concord_io.landing.seeds), then the study's
registries and their folders (``seeds/mcq/``), checks every file, and writes
``<landing>/seeds/seed=<name>/``, ``<landing>/mcq/run_id=<run_id>/`` and
``<landing>/items/task=<task>/`` (CONCORD_LANDING_DIR, default ``warehouse/landing``). Prints
one line per landed folder; bad input is one line naming the file, row and column (exit
status 2)."""

from __future__ import annotations

import argparse
from pathlib import Path

from concord_io import paths
from concord_io.errors import printable, run_main
from concord_io.landing import land


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m concord_io.landing", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument(
        "--project-dir",
        "--project",
        dest="project",
        type=Path,
        default=None,
        help="the Concord project folder (default: DBT_PROJECT_DIR, else the folder this runs "
        "in or the nearest above it with a dbt_project.yml)",
    )
    parser.add_argument(
        "--landing", type=Path, default=None, help="landing folder (default: CONCORD_LANDING_DIR)"
    )
    args = parser.parse_args(argv)
    project = paths.project_root(args.project)
    for line in land(project, args.landing or paths.landing_dir(project)).lines():
        print(printable(line))
    return 0


if __name__ == "__main__":
    run_main(main)
