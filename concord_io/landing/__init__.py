"""The project's one reader of its input files: the seed files (``seeds/<study>/*.csv``)
and every registered answer and item file of the cross-lingual study, validated and landed
as typed, immutable Parquet under the landing folder (docs/landing.md), which dbt's staging
models read on DuckDB and on Spark alike.

    from concord_io.landing import land
    report = land(project_root, landing_dir)   # a LandingReport, one outcome per folder

or ``python -m concord_io.landing`` (``concord land``); :func:`land_seeds` and
:func:`land_mcq` land each part. Bad input raises :class:`concord_io.errors.ConcordError`:
one line naming the file, row and column, and a hint.
"""

from __future__ import annotations

from pathlib import Path

from concord_common.project_dir import project_vars
from concord_io.landing.engine import LandingReport, Outcome, open_landing
from concord_io.landing.mcq import land_mcq, land_study
from concord_io.landing.seeds import land_seed_files, land_seeds
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
