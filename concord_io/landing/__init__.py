"""The project's one reader of its input files: the seed files (``seeds/<study>/*.csv``)
and every registered answer and item file of the cross-lingual study, validated and landed
as typed, immutable Parquet under the landing folder (docs/landing.md), which dbt's staging
models read on DuckDB and on Spark alike.

    from concord_io.landing import land
    report = land(project_root, landing_dir)   # a LandingReport, one outcome per folder

or ``concord land``; :func:`land_seeds` and
:func:`land_mcq` land each part. Bad input raises :class:`concord_io.errors.ConcordError`:
one line naming the file, row and column, and a hint.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from concord_common.project_dir import project_vars
from concord_io.landing.engine import Landing, LandingReport, Outcome, open_landing
from concord_io.landing.mcq import land_mcq, land_study
from concord_io.landing.seeds import AREA, KEY, Seed, read_seeds
from concord_io.landing.study import checked_task, study_of

__all__ = ["LandingReport", "Outcome", "land", "land_mcq", "land_seeds"]


def land(
    project_root: Path | str, landing_dir: Path | str, variables: dict | None = None
) -> LandingReport:
    """Land the seed files, then the cross-lingual study's inputs (``variables``: the vars
    given to one dbt call, over ``dbt_project.yml``'s). Every var is checked before
    anything is written or removed (a task var names a landing folder)."""
    project = Path(project_root)
    merged = project_vars(project, variables)  # read once
    checked_task(merged)
    # one landing for both parts (the folder checked and locked once): no build between them
    with open_landing(landing_dir, project, merged) as landing:
        seeds = land_seed_files(landing, project)
        mcq = land_study(landing, study_of(project, merged))
    return LandingReport(seeds.outcomes + mcq.outcomes, seeds.notes + mcq.notes)


def _folder(seed: Seed) -> str:
    return f"{AREA}/{KEY}={seed.name}"


def land_seeds(project: Path | str, landing_dir: Path | str) -> LandingReport:
    """Land every declared seed file of ``project`` under ``landing_dir``; see the module's
    doc."""
    with open_landing(
        landing_dir, project, project_vars(Path(project))
    ) as landing:  # checked before a seed is read
        return land_seed_files(landing, project)


def land_seed_files(landing: Landing, project: Path | str) -> LandingReport:
    """Land every declared seed file of ``project`` with ``landing`` (its folder checked and
    held)."""
    report = LandingReport()
    tables = read_seeds(
        project,
        lambda seed, fp: landing.landed_with(_folder(seed), [seed.name], fp),
    )
    unchanged: dict[str, Outcome] = {}
    for seed, table, fp in tables.values():
        folder = _folder(seed)
        if table is None:  # landed already: its row count from the Parquet footer
            assert landing.root is not None
            n_rows = pq.read_metadata(landing.root / folder / f"{seed.name}.parquet").num_rows
        else:
            n_rows = table.num_rows
        detail = f"{n_rows} {'row' if n_rows == 1 else 'rows'} from {seed.relative}"
        if table is None:
            unchanged[folder] = Outcome("unchanged", folder, detail)
        else:
            landing.stage(folder, {seed.name: (table.schema, table)}, fp, detail)
    committed = landing.commit()
    report.outcomes += [unchanged.get(f) or committed[f] for f in map(_folder, _seeds(tables))]
    kept = {_folder(seed) for seed, _, _ in tables.values()}
    report.outcomes += landing.remove_others(AREA, kept, "no longer declared")
    return report


def _seeds(tables: dict[str, tuple[Seed, pa.Table | None, str]]) -> list[Seed]:
    return [seed for seed, _, _ in tables.values()]
