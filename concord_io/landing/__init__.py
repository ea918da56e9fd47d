"""The project's one reader of the cross-lingual study's input files: every registered
answer and item file validated and landed as typed, immutable Parquet under the landing
folder (docs/landing.md), which dbt's staging models read.

    from concord_io.landing import land_mcq
    report = land_mcq(project_root, landing_dir)   # a LandingReport, one outcome per folder

or ``python -m concord_io.landing`` (``concord land``). Bad input raises
:class:`concord_io.errors.ConcordError`: one line naming the file, row and column, and a hint.
"""

from __future__ import annotations

from concord_io.landing.mcq import LandingReport, Outcome, land_mcq

__all__ = ["LandingReport", "Outcome", "land_mcq"]
