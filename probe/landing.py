"""Landing a probe run in the warehouse as immutable Parquet files.

The probe never opens the build database: DuckDB allows one writer or many readers, so a
running `dbt build` or a BI connection would block the probe (or it them), and the probe may
run on another machine. A run lands as one folder

    <landing>/probe/run_id=<id>/{runs,scores,stimuli}.parquet

written first under a hidden name (.tmp-...) and then renamed into place, so an interrupted
run leaves nothing that the dbt glob (``run_id=*``) can see. A run id already landed is
refused unless ``replace``: then the old folder is renamed aside, the new one renamed in, the
old one deleted. Only raw scores land (summed log-probabilities, token counts and token
log-probabilities, with the run's metadata); the softmax, the indices and the top choice are
derived once, in dbt.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import partial
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from concord_common import folders, project_dir, warehouse_lock
from concord_common.probe_landing import (  # noqa: F401 (the probe's names for them)
    RUNS_SCHEMA,
    SCHEMAS,
    SCORES_SCHEMA,
    STIMULI_SCHEMA,
    landed_run_ids,
    list_runs,
)
from probe.errors import ProbeError, inside
from probe.stimuli import project_root

TABLES = ("runs", "scores", "stimuli")
# Rows per Parquet row group: bounded memory for readers of large designs (DuckDB reads row
# groups in parallel), while the reference design (800 score rows) stays one group.
ROW_GROUP_ROWS = 65_536
RUN_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")

FINITE_COLUMNS = {"scores": ("logprob", "token_logprobs")}


class LandingError(ProbeError, ValueError):
    """A run cannot land: bad run id, run id taken, wrong columns, or non-finite scores."""


def default_landing_dir() -> Path:
    """The landing folder (:func:`concord_common.project_dir.landing_dir`: CONCORD_LANDING_DIR,
    relative paths from the project root as dbt reads them)."""
    return project_dir.landing_dir(project_root(), error=LandingError)


def check_run_id(run_id: str) -> str:
    if not RUN_ID_PATTERN.match(run_id):
        raise LandingError(
            f"run id {run_id!r} refused",
            hint="use 1-128 letters, digits, '_', '-', '.', starting with a letter or digit",
        )
    return run_id


def runs_dir(landing_dir: Path | str) -> Path:
    """``<landing>/probe``; a landing folder (or its ``probe``) that is a file is refused."""
    for folder in (Path(landing_dir), Path(landing_dir) / "probe"):
        if folder.exists() and not folder.is_dir():
            raise LandingError(
                f"landing folder {folder} is a file, not a folder",
                hint="pass --landing-dir a folder, or set CONCORD_LANDING_DIR to one",
            )
    return Path(landing_dir) / "probe"


def run_dir(landing_dir: Path | str, run_id: str) -> Path:
    return inside(runs_dir(landing_dir), f"run_id={check_run_id(run_id)}")


def _check_finite(name: str, table: pa.Table) -> None:
    for column in FINITE_COLUMNS.get(name, ()):
        values = table.column(column)
        if pa.types.is_list(values.type):
            values = pa.chunked_array([chunk.flatten() for chunk in values.chunks])
        array = values.to_numpy(zero_copy_only=False).astype(float)
        bad = ~np.isfinite(array)
        if bad.any():
            raise LandingError(
                f"{name}.{column}: {int(bad.sum())} NaN or infinite value(s); the run is not "
                "landed (check the model's dtype and weights)"
            )
        positive = array > 0
        if positive.any():  # a log-probability is at most 0
            raise LandingError(
                f"{name}.{column}: {int(positive.sum())} positive value(s), which no "
                "log-probability can be; the run is not landed"
            )


def to_table(name: str, rows: list[dict]) -> pa.Table:
    """Rows as a table with the landing schema of ``name`` (missing or extra keys fail)."""
    schema = SCHEMAS[name]
    for i, row in enumerate(rows):
        if set(row) != set(schema.names):
            raise LandingError(
                f"{name} row {i}: columns {sorted(row)} differ from {sorted(schema.names)}"
            )
    return pa.Table.from_pylist(rows, schema=schema)


def columns_to_table(name: str, columns: dict[str, object]) -> pa.Table:
    """Columns (lists or arrays) as a table with the landing schema of ``name``: the scores
    of a large design are built column-wise, without a Python dict per row."""
    schema = SCHEMAS[name]
    if set(columns) != set(schema.names):
        raise LandingError(f"{name}: columns {sorted(columns)} differ from {sorted(schema.names)}")
    return pa.table(
        {
            field.name: column.cast(field.type)
            if isinstance(column := columns[field.name], pa.Array)
            else pa.array(column, field.type)
            for field in schema
        }
    )


def run_exists(run_id: str, folder: Path) -> LandingError:
    return LandingError(
        f"run id {run_id!r} is already landed ({folder})",
        hint="choose another --run-id, add --replace to overwrite it, or --resume a sweep",
    )


def remove_run(landing_dir: Path | str, run_id: str) -> Path:
    """Move run_id=<id> out of the dbt glob in one rename, then delete it.

    The rename is atomic, so a dbt build that lists the folder sees the run whole or not at
    all; files it already opened stay readable until it closes them (POSIX unlink).
    """
    final = run_dir(landing_dir, run_id)
    if not final.is_dir():
        raise LandingError(
            f"run id {run_id!r} is not landed in {final.parent}",
            hint="python -m probe runs lists the landed runs",
        )
    folders.remove(final)
    return final


def timestamp(value: datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S UTC")


def land_run(
    landing_dir: Path | str, run_id: str, tables: dict[str, pa.Table], *, replace: bool = False
) -> Path:
    """Validate, write to a hidden folder, fsync, and rename to run_id=<id>; returns the folder.

    A landing killed between the two renames of a replacement leaves the earlier version
    under .old-*: the next holder of the warehouse lock puts it back before anything reads
    the landing (:func:`concord_common.warehouse_lock.settle_landing`).
    """
    if set(tables) != set(TABLES):
        raise LandingError(f"a run lands exactly the tables {TABLES}, got {sorted(tables)}")
    for name, table in tables.items():
        if not table.schema.equals(SCHEMAS[name]):
            raise LandingError(f"{name}: schema differs from the landing schema")
        _check_finite(name, table)
        if table.num_rows and set(table.column("run_id").to_pylist()) != {run_id}:
            raise LandingError(f"{name}: run_id column differs from {run_id!r}")
    final = run_dir(landing_dir, run_id)
    final.parent.mkdir(parents=True, exist_ok=True)
    # the warehouse lock: a build in progress reads the landing whole before the run appears
    with warehouse_lock.held(landing_dir, f"probe landing run {run_id}", error=LandingError):
        if final.exists() and not replace:
            raise run_exists(run_id, final)
        return folders.write(
            final,
            {
                f"{name}.parquet": partial(pq.write_table, table, row_group_size=ROW_GROUP_ROWS)
                for name, table in tables.items()
            },
        )
