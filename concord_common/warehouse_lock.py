"""One lock for the warehouse: whatever writes the landing or reads it whole holds it.

``concord land`` (and the dbt plugin's own landing), ``dbt build`` through the plugin for
the whole build (the models read the landing from the first node to the last), publish, the
probe's landing of a run, and every command that writes ``seeds/`` (``concord add lmeval``,
which ``probe mcq --land`` runs, from its first read of the seed files to its last write)
all take ``<landing>/.concord.lock`` (``flock``, exclusive).
A second one waits for the first and says once, in one line, who holds it (the holder writes
its process id, command and start time into the file); the operating system releases the
lock when the holder's process ends, however it ends, so no lock is ever left stale, and
what a killed holder left half-written is resolved by the next one as it takes the lock
(:func:`settle_landing`).

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

from concord_common import UserError, folders
from concord_common.settings import value

LOCK_FILE = ".concord.lock"
#: What a holder sets for the processes it starts, with its descriptor passed on
#: (:func:`handed_on`): they hold the lock already (``concord build``'s stages hold one lock
#: from the landing to the end of the build, with no moment between them where another
#: command could land or build).
HANDED_ON = "CONCORD_WAREHOUSE_LOCK_FD"
_held: dict[Path, list[int]] = {}  # lock file -> [descriptor, depth]
_inherited: set[Path] = set()  # lock files held through a descriptor handed on (never closed)


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def open_lock_file(path: Path, *, error: type[UserError], what: str, again: str) -> int:
    """``path`` opened for ``flock`` (created if missing), the descriptor: never through a
    link (the file is truncated and written), only a regular file. ``what`` names the lock
    in the message, ``again`` what to do once the user removed the culprit. The publish lock
    (concord_io/serving/publish.py) is opened through this too."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as caught:
        if caught.errno == errno.EISDIR:
            fd = None
        elif caught.errno == errno.ELOOP:
            raise error(
                f"{path}: {what} is a symbolic link; it is never opened through one",
                hint=f"remove the link ({path}) and {again}; nothing was changed",
            ) from None
        else:
            raise
    if fd is None or not stat.S_ISREG(os.fstat(fd).st_mode):
        if fd is not None:
            os.close(fd)
        raise error(f"{path}: {what} is not a regular file", hint=f"remove it and {again}")
    return fd


def holder_of(fd: int) -> str:
    """What the holder of the lock file ``fd`` wrote into it, or '' (an older holder)."""
    return os.pread(fd, 300, 0).decode("utf-8", "replace").strip()


def claim(fd: int, holder: str) -> None:
    """Write ``holder`` into the lock file ``fd``, whose lock this process now holds."""
    os.ftruncate(fd, 0)
    os.pwrite(fd, holder.encode(), 0)


def acquire(
    landing: Path | str,
    holder: str,
    *,
    error: type[UserError],
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
    inherited = _handed_on_to_me(path)
    if inherited is not None:  # the parent holds it for this process (and settled it)
        _held[path] = [inherited, 1]
        _inherited.add(path)
        return path
    fd = open_lock_file(path, error=error, what="the warehouse lock", again="run it again")
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            announce(
                f"waiting for the warehouse ({folder}): held by "
                f"{holder_of(fd) or 'another process'}"
            )
            fcntl.flock(fd, fcntl.LOCK_EX)
        since = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        claim(fd, f"pid {os.getpid()}, {holder}, since {since}")
        settle_landing(folder, error)
    except BaseException:
        os.close(fd)
        raise
    _held[path] = [fd, 1]
    return path


def settle_landing(landing: Path, error: type[UserError]) -> None:
    """What a holder killed while it wrote left in the landing, resolved by the next holder
    before anything reads it (:func:`concord_common.folders.settle`): in the landing folder
    (spill folders) and in each of its areas (``mcq``, ``items``, ``seeds``, ``probe``: a
    replacement cut between its renames undone, unfinished writes deleted). An area's
    ``<key>=<value>`` entry that is not a folder (a file or a link put in a run's place) is
    refused (``error``): a build would read the landing without that run."""
    areas = [p for p in sorted(landing.iterdir()) if not p.name.startswith(".") and p.is_dir()]
    for folder in (landing, *areas):
        folders.settle(folder)
    for area in areas:
        if area.is_symlink():
            continue  # refused by the writers, which never write through a link
        for entry in sorted(area.iterdir()):
            if (
                "=" in entry.name
                and not entry.name.startswith(".")
                and (entry.is_symlink() or not entry.is_dir())
            ):
                kind = "a symbolic link" if entry.is_symlink() else "not a folder"
                raise error(
                    f"{entry}: {kind}, where the landing holds only the folders the reader and "
                    "the probe write (a run or a table's folder)",
                    hint="move it out of the landing folder and run the command again (it "
                    "lands again from its inputs); nothing was written",
                )


def release(path: Path) -> None:
    """Give back one :func:`acquire` of the lock file ``path``."""
    entry = _held.get(path)
    if entry is None:
        return
    entry[1] -= 1
    if entry[1] == 0:
        del _held[path]
        if path not in _inherited:  # the parent's holding outlasts this process's
            os.close(entry[0])  # releases the lock


def release_all() -> None:
    """Give back every lock this process holds (after running dbt in this process)."""
    for path in list(_held):
        _held[path][1] = 1
        release(path)


def handed_on(path: Path) -> tuple[int, dict[str, str]]:
    """The descriptor of the lock file ``path`` this process holds, and the environment that
    tells a process it starts (given the descriptor: ``pass_fds``) that it holds it too."""
    fd = _held[path][0]
    return fd, {HANDED_ON: f"{fd}:{path}"}


def _handed_on_to_me(path: Path) -> int | None:
    """The descriptor of ``path`` a parent holding its lock handed on (:func:`handed_on`),
    checked to be that very file (a name is not an identity); None where none was."""
    fd_text, _, named = value(HANDED_ON).partition(":")
    if not fd_text.isdigit() or Path(named) != path:
        return None
    try:
        mine, theirs = os.fstat(int(fd_text)), os.stat(path)
    except OSError:  # not passed on (a process the holder did not start itself)
        return None
    same = (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino)
    return int(fd_text) if same else None


@contextmanager
def held(landing: Path | str, holder: str, *, error: type[UserError]) -> Iterator[None]:
    """The warehouse lock of ``landing``, for a ``with`` block."""
    path = acquire(landing, holder, error=error)
    try:
        yield
    finally:
        release(path)
