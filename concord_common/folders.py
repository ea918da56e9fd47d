"""Folders that appear whole or not at all: the one implementation of the landing's (the
probe's runs, the reader's runs and items) and the publish's durable writes.

A folder is written under a hidden name, its files fsynced, then renamed into place; a
folder already there is first renamed aside (``.old-<name>-<id>``) and deleted after, and
what a write cut short leaves (a replacement cut off between the two renames, an unfinished
write or removal) is resolved by :func:`settle` before the folder is read again (the
``.old-`` folder is put back; the rest deleted). A reader of the visible names therefore
sees a folder whole or not at all. Both ``concord_io`` and ``probe`` use this module; they
never import each other.
"""

from __future__ import annotations

import os
import re
import shutil
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path


def fsync(path: Path) -> None:
    """Make ``path`` (a file, or a folder's entries) durable before the next step."""
    descriptor = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if path.is_dir() else 0))
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def hidden_sibling(final: Path, kind: str) -> Path:
    """A hidden, unique name beside ``final`` (``.tmp-``, ``.old-``, ``.removed-``) that no
    glob of visible folders matches."""
    return final.with_name(f".{kind}-{final.name}-{uuid.uuid4().hex}")


#: What a write cut short leaves beside the folders it writes (:func:`hidden_sibling`), and
#: the spill folders of a landing (``tempfile.mkdtemp(prefix=".spill-")``).
LEFT_BEHIND = re.compile(r"^\.(?P<kind>tmp|old|removed)-(?P<name>.+)-[0-9a-f]+$|^\.spill-")


def settle(folder: Path) -> list[str]:
    """Resolve what writes cut short left in ``folder`` (killed, or the machine stopped),
    before anything reads it: a replacement cut off between its two renames is undone (its
    previous version, ``.old-<name>-*``, put back where ``<name>`` is gone: the newest, if
    several) or finished (the ``.old-`` folder deleted where ``<name>`` is there); an
    unfinished write (``.tmp-*``), removal (``.removed-*``) or spill (``.spill-*``) is
    deleted. Whoever writes ``folder`` must hold it alone meanwhile (the warehouse lock).
    Returns what was put back."""
    if not folder.is_dir() or folder.is_symlink():
        return []
    hidden = sorted(
        (entry for entry in folder.iterdir() if LEFT_BEHIND.match(entry.name)),
        key=lambda entry: entry.lstat().st_mtime,
        reverse=True,  # the newest .old- first
    )
    restored = []
    for entry in hidden:
        found = LEFT_BEHIND.match(entry.name)
        assert found is not None
        final = folder / found["name"] if found["kind"] == "old" else None
        if final is not None and not final.exists() and not final.is_symlink():
            entry.rename(final)
            restored.append(final.name)
        elif entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    if hidden:
        fsync(folder)
    return restored


def swap_into_place(staging: Path, final: Path) -> None:
    """Rename the finished ``staging`` folder to ``final``, replacing an earlier version
    (renamed aside first, deleted last), and make the renames durable."""
    if final.exists():
        aside = hidden_sibling(final, "old")
        final.rename(aside)
        staging.rename(final)
        shutil.rmtree(aside)
    else:
        staging.rename(final)
    fsync(final.parent)


def write(final: Path, files: Mapping[str, Callable[[Path], object]]) -> Path:
    """``final`` holding ``files`` (a file name -> what writes that file at the path it is
    given), whole or not at all: written in a hidden sibling folder, each file and the folder
    fsynced, then swapped into place; the hidden folder is removed if anything fails."""
    staging = hidden_sibling(final, "tmp")
    staging.mkdir()
    try:
        for name, write_file in files.items():
            if Path(name).name != name or name in (".", ".."):
                raise ValueError(f"{name!r} is not a file name")
            write_file(staging / name)
            fsync(staging / name)
        fsync(staging)
        swap_into_place(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return final


def remove(final: Path) -> None:
    """Move a folder out of every glob of visible folders in one rename, then delete it (a
    reader holding its files keeps them until it closes them)."""
    aside = hidden_sibling(final, "removed")
    final.rename(aside)
    shutil.rmtree(aside)
