"""An empty folder of typed tables for each landing area that holds no folder yet.

Spark's Parquet reader refuses a glob that matches no file, so before the first probe run
(or before anything of the cross-lingual study is landed) every model of that area would
fail on Spark; DuckDB reads such a glob as no rows. The reader therefore keeps, in an area
with no real folder, ``<area>/<key>=_empty/`` holding each of the area's tables with no
rows: both engines read it as empty. ``_empty`` is never a run id or a task (those start
with a letter or a digit); the folder goes as soon as the area has a real one.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from concord_common.probe_landing import SCHEMAS as PROBE_SCHEMAS
from concord_io.landing import schemas
from concord_io.landing.writer import checked_path, remove_folder, write_folder

PLACEHOLDER = "_empty"
#: area -> (its folders' key, its tables)
AREAS: dict[str, tuple[str, dict[str, pa.Schema]]] = {
    "mcq": ("run_id", {n: s for n, s in schemas.TABLES.items() if n != "items"}),
    "items": ("task", {"items": schemas.ITEMS}),
    "probe": ("run_id", PROBE_SCHEMAS),
}


def keep_placeholders(root: Path) -> None:
    """Write the placeholder of each area of ``root`` that has no real folder; remove it
    from an area that has one."""
    for area, (key, tables) in AREAS.items():
        relative = f"{area}/{key}={PLACEHOLDER}"
        folder = checked_path(root, area)
        real = folder.is_dir() and any(
            p.is_dir() and p.name != f"{key}={PLACEHOLDER}" for p in folder.glob(f"{key}=*")
        )
        there = checked_path(root, relative).is_dir()
        if real and there:
            remove_folder(root, relative)
        elif not real and not there:
            write_folder(
                root,
                relative,
                {name: schema.empty_table() for name, schema in tables.items()},
                fingerprint=PLACEHOLDER,
            )
