"""The dbt seeds' files, checked by the strict reader before dbt reads any of them.

dbt reads a seed with its own CSV parser (agate), which pads a short row, accepts a stray
quote, loads a renamed column without a word and stops on an empty or non-UTF-8 file with a
traceback. So every seed file is checked first, by the same rules as every other input
(:mod:`concord_io.landing.strict_csv`): UTF-8, a header of the columns its ``column_types``
declare (any order: seeds load by name), and records of the header's width. Every refused
seed is named on its own line, with its row and column, before anything is loaded.

The dbt plugin checks them before ``dbt build`` and ``dbt seed``; ``concord build`` and
``concord land`` (the step Spark needs first, docs/spark.md) before dbt starts, which
matters for one case: dbt's parser reads every seed as UTF-8 to hash it, before the plugin
runs.

    python -m concord_io.landing.seeds [--project PATH]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import pathspec
import yaml

from concord_io import paths
from concord_io.errors import ConcordError, run_main
from concord_io.landing.strict_csv import NOTHING_LOADED, check_csv


@dataclass(frozen=True)
class Seed:
    name: str
    path: Path
    relative: str  # as dbt names it: the path from the project folder
    columns: list[str] | None  # its declared column_types, None when it declares none


def _seed_paths(project: Path) -> list[str]:
    config = yaml.safe_load((project / "dbt_project.yml").read_text(encoding="utf-8"))
    return list(config.get("seed-paths") or ["seeds"])


def _declared(folder: Path) -> dict[str, dict]:
    """Each seed's config, by name, from the property files under ``folder``."""
    configs: dict[str, dict] = {}
    for properties in sorted(folder.rglob("*.yml")):
        document = yaml.safe_load(properties.read_text(encoding="utf-8")) or {}
        for entry in document.get("seeds") or []:
            configs[entry["name"]] = entry.get("config") or {}
    return configs


def project_seeds(project: Path) -> list[Seed]:
    """Every CSV file dbt loads as a seed: under the seed paths, not ignored by
    ``.dbtignore`` (the study's data folders are read by the reader, not by dbt)."""
    ignore = project / ".dbtignore"
    ignored = pathspec.PathSpec.from_lines(
        "gitwildmatch", ignore.read_text(encoding="utf-8").splitlines() if ignore.is_file() else []
    )
    seeds = []
    for seed_path in _seed_paths(project):
        folder = project / seed_path
        if not folder.is_dir():
            continue
        configs = _declared(folder)
        for path in sorted(folder.rglob("*.csv")):
            relative = path.relative_to(project).as_posix()
            if ignored.match_file(relative):
                continue
            config = configs.get(path.stem, {})
            if config.get("delimiter", ",") != ",":
                raise ConcordError(
                    f"seed {path.stem} ({relative}): delimiter {config['delimiter']!r}",
                    hint="seeds are comma-separated CSV files: remove the delimiter setting",
                )
            types = config.get("column_types")
            seeds.append(Seed(path.stem, path, relative, list(types) if types else None))
    return seeds


def check_seeds(project: Path) -> int:
    """Check every seed file of ``project``; the number checked. Raises one
    :class:`ConcordError` whose message names every refused seed, one line each."""
    problems = []
    seeds = project_seeds(project)
    for seed in seeds:
        try:
            check_csv(
                seed.path.read_bytes(), f"seed {seed.name} ({seed.relative})", declared=seed.columns
            )
        except ConcordError as error:
            hint = (error.hint or "").replace(NOTHING_LOADED, "no seed was loaded")
            problems.append(f"{error.message}. {hint}".rstrip(". "))
    if problems:
        raise ConcordError(
            "\n".join(problems), hint=f"fix the {len(problems)} seed file(s) named above"
        )
    return len(seeds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m concord_io.landing.seeds", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument(
        "--project", type=Path, default=paths.PROJECT_ROOT, help="the Concord project folder"
    )
    print(f"seeds: {check_seeds(parser.parse_args(argv).project)} file(s) checked")
    return 0


if __name__ == "__main__":
    run_main(main)
