"""Writing a landing folder (a run, or a task's items) whole or not at all.

A folder is written under a hidden name (``.tmp-...``), each file fsynced, then renamed into
place; a folder already there is first renamed aside (``.old-...``) and deleted after, and a
replacement cut off between the two renames is undone by the next write (the ``.old-``
folder is put back). A reader of the ``run_id=*`` glob therefore sees a run whole or not at
all. (The mechanics are :mod:`concord_common.folders`, which the probe's landing shares.)

Every path is built inside the landing folder and refused when it leaves it or passes
through a symbolic link. Each Parquet file carries the folder's fingerprint (a hash of
everything it was made from) in its metadata: an unchanged input is not written again.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from concord_common import folders, inside_without_links
from concord_io.errors import ConcordError, disk_error

#: Rows per Parquet row group (docs/landing.md): bounded memory for readers.
ROW_GROUP_ROWS = 65_536
FINGERPRINT = b"concord.fingerprint"


def checked_path(root: Path, relative: str) -> Path:
    """``root / relative``, refused when it resolves outside ``root`` or when any part of it
    below ``root`` is a symbolic link (nothing is written through a link)."""
    return inside_without_links(
        root,
        relative,
        what="landing path",
        hint="remove the link (the landing folder holds only what the reader wrote)",
        error=ConcordError,
    )


def fingerprint_of(folder: Path, first_table: str) -> str | None:
    """The fingerprint a landed folder was written with, or None (absent, unreadable)."""
    try:
        metadata = pq.read_schema(folder / f"{first_table}.parquet").metadata or {}
    except (OSError, pa.ArrowException):
        return None
    value = metadata.get(FINGERPRINT)
    return value.decode() if value else None


def write_folder(root: Path, relative: str, tables: dict[str, pa.Table], fingerprint: str) -> Path:
    """Write ``tables`` as ``<root>/<relative>/<name>.parquet`` and rename the folder into
    place, replacing an earlier version."""
    final = checked_path(root, relative)
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        folders.recover(final)
        staging = folders.hidden_sibling(final, "tmp")
        staging.mkdir()
        try:
            for name, table in tables.items():
                path = staging / f"{name}.parquet"
                metadata = {**(table.schema.metadata or {}), FINGERPRINT: fingerprint.encode()}
                pq.write_table(
                    table.replace_schema_metadata(metadata), path, row_group_size=ROW_GROUP_ROWS
                )
                folders.fsync(path)
            folders.fsync(staging)
            folders.swap_into_place(staging, final)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    except OSError as error:
        problem = disk_error(error, final, "free space or fix the landing folder's permissions")
        if problem is None:
            raise
        raise problem from error
    return final


def remove_folder(root: Path, relative: str) -> None:
    """Move a landed folder out of the dbt glob in one rename, then delete it."""
    folders.remove(checked_path(root, relative))
