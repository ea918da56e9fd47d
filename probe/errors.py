"""Expected failures of the probe's command line: one line (and a hint), exit status 2.

The same contract as the warehouse's command lines, from :mod:`concord_common`, which the
probe shares with ``concord_io`` without importing it (the probe job runs on GPU machines
that have only the probe's dependencies; only ``probe mcq`` imports the landing's reader, and
turns its one-line failures into these). An expected failure raises :class:`ProbeError`.
"""

from __future__ import annotations

from pathlib import Path

import concord_common
from concord_common import printable, run_main

__all__ = ["ProbeError", "inside", "printable", "run_main"]


class ProbeError(concord_common.UserError):
    """A failure of the probe the user can fix; ``hint`` says how."""


def inside(folder: Path | str, name: str) -> Path:
    """``folder / name``, refused with a :class:`ProbeError` when it resolves outside
    ``folder``: every probe writer builds its target through this."""
    return concord_common.inside(folder, name, what="name", error=ProbeError)
