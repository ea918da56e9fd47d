"""The project's one reader of its input files: every registered answer and item file of the
cross-lingual study validated and landed as typed, immutable Parquet under the landing
folder (docs/landing.md), which dbt's staging models read; every dbt seed file checked by
the same rules before dbt loads it.

    from concord_io.landing import land_mcq
    from concord_io.landing.seeds import check_seeds
    check_seeds(project_root)                      # the number of seed files checked
    report = land_mcq(project_root, landing_dir)   # a LandingReport, one outcome per folder

or ``python -m concord_io.landing`` (``concord land``). Bad input raises
:class:`concord_io.errors.ConcordError`: one line naming the file, row and column, and a hint.
"""

from __future__ import annotations

from concord_io.landing.mcq import LandingReport, Outcome, land_mcq

__all__ = ["LandingReport", "Outcome", "land_mcq"]
