"""Expected failures of the warehouse's command lines: :class:`ConcordError` and the one-line
reporting they share with the probe job (:mod:`concord_common`), plus :func:`disk_error`.
"""

from __future__ import annotations

import errno

from concord_common import (
    EXIT_BUG,
    EXIT_USER_ERROR,
    debug_requested,
    printable,
    run_main,
)
from concord_common import UserError as ConcordError

__all__ = [
    "EXIT_BUG",
    "EXIT_USER_ERROR",
    "ConcordError",
    "debug_requested",
    "disk_error",
    "printable",
    "run_main",
]


def disk_error(error: BaseException, where: object, hint: str) -> ConcordError | None:
    """A full or read-only disk, or a folder that may not be written, as a ConcordError naming
    ``where`` (or None for any other error). DuckDB reports these as text, Python by errno."""
    text = str(error)
    number = getattr(error, "errno", None)
    if number == errno.ENOSPC or "No space left on device" in text:
        what = "no space left on the device"
    elif number == errno.EROFS or "Read-only file system" in text:
        what = "the file system is read-only"
    elif number == errno.EACCES or isinstance(error, PermissionError):
        what = "permission denied"
    else:
        return None
    detail = getattr(error, "filename", None) or text
    return ConcordError(f"{printable(where)}: {what} ({printable(detail)})", hint=hint)
