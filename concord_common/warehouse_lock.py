"""One lock for the warehouse: whatever writes the landing or reads it whole holds it.

``concord land`` (and the dbt plugin's own landing), ``dbt build`` through the plugin for
the whole build (the models read the landing from the first node to the last), publish, and
the probe's landing of a run all take ``<landing>/.concord.lock`` (``flock``, exclusive).
A second one waits for the first and says once, in one line, who holds it (the holder writes
its process id, command and start time into the file); the operating system releases the
lock when the holder's process ends, however it ends, so no lock is ever left stale.

The lock is re-entrant within a process (the plugin's build holds it and its landing takes
it again): each ``acquire`` is matched by one ``release``; :func:`release_all` lets a
process that ran dbt in itself (the tests' dbtRunner) give back what the plugin held.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

LOCK_FILE = ".concord.lock"
_held: dict[Path, list[int]] = {}  # lock file -> [descriptor, depth]


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def acquire(
    landing: Path | str,
    holder: str,
    *,
    error: type[Exception],
    announce: Callable[[str], None] = _say,
) -> Path:
    """Take the warehouse lock of ``landing`` (created if missing) for ``holder`` (the
    command, as a reader of the message would name it), waiting for another holder; the
    lock file's path. ``error`` (with a ``hint``) when the lock file is not a regular file
    or is a link."""
    folder = Path(landing)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder.resolve() / LOCK_FILE
    if path in _held:
        _held[path][1] += 1
        return path
    try:
        # never through a link: the file is truncated and written below
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as caught:
        if caught.errno != errno.ELOOP:
            raise
        raise error(
            f"{path}: the warehouse lock is a symbolic link; it is never opened through one",
            hint=f"remove the link ({path}) and run the command again; nothing was changed",
        ) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise error(f"{path}: the warehouse lock is not a regular file", hint="remove it")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            other = os.pread(fd, 300, 0).decode("utf-8", "replace").strip() or "another process"
            announce(f"waiting for the warehouse ({folder}): held by {other}")
            fcntl.flock(fd, fcntl.LOCK_EX)
        since = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, {holder}, since {since}".encode(), 0)
    except BaseException:
        os.close(fd)
        raise
    _held[path] = [fd, 1]
    return path


def release(path: Path) -> None:
    """Give back one :func:`acquire` of the lock file ``path``."""
    entry = _held.get(path)
    if entry is None:
        return
    entry[1] -= 1
    if entry[1] == 0:
        del _held[path]
        os.close(entry[0])  # releases the lock


def release_all() -> None:
    """Give back every lock this process holds (after running dbt in this process)."""
    for path in list(_held):
        _held[path][1] = 1
        release(path)


@contextmanager
def held(landing: Path | str, holder: str, *, error: type[Exception]) -> Iterator[None]:
    """The warehouse lock of ``landing``, for a ``with`` block."""
    path = acquire(landing, holder, error=error)
    try:
        yield
    finally:
        release(path)
