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
from concord_io.landing.mcq import LandingReport, Outcome, land_mcq, locked_landing
from concord_io.landing.seeds import land_seeds
from concord_io.landing.study import checked_task

__all__ = ["LandingReport", "Outcome", "land", "land_mcq", "land_seeds"]


def land(
    project_root: Path | str, landing_dir: Path | str, variables: dict | None = None
) -> LandingReport:
    """Land the seed files, then the cross-lingual study's inputs (``variables``: the vars
    given to one dbt call, over ``dbt_project.yml``'s). Every var is checked before
    anything is written or removed (a task var names a landing folder)."""
    checked_task(project_vars(Path(project_root), variables))
    # one holding for both parts: no build between them
    with locked_landing(landing_dir, project_root, variables):
        seeds = land_seeds(project_root, landing_dir)
        mcq = land_mcq(project_root, landing_dir, variables)
    return LandingReport(seeds.outcomes + mcq.outcomes, seeds.notes + mcq.notes)
