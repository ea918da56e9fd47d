"""Landing a probe run in the warehouse as immutable Parquet files.

The probe never opens the build database: DuckDB allows one writer or many readers, so a
running `dbt build` or a BI connection would block the probe (or it them), and the probe may
run on another machine. A run lands as one folder

    <landing>/probe/run_id=<id>/{runs,scores,stimulus_indices}.parquet

written first under a hidden name (.tmp-...) and then renamed into place, so an interrupted
run leaves nothing that the dbt glob (``run_id=*``) can see. Re-landing a run id replaces
the old folder: the old one is renamed aside, the new one renamed in, the old one deleted.
"""

from __future__ import annotations

import os
import re
import shutil
import uuid
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from probe.stimuli import PROJECT_ROOT

TABLES = ("runs", "scores", "stimulus_indices")
RUN_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")

RUNS_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("model", pa.string()),
        ("config_hash", pa.string()),
        ("design_hash", pa.string()),
        ("tokenizer", pa.string()),
        ("dtype", pa.string()),
        ("device", pa.string()),
        ("batch_size", pa.int32()),
        ("template_id", pa.string()),
        ("prompt_template", pa.string()),
        ("candidate_set", pa.list_(pa.string())),
        ("candidate_groups", pa.list_(pa.string())),
        ("n_stimuli", pa.int32()),
        ("n_candidates", pa.int32()),
        ("started_at", pa.timestamp("us", tz="UTC")),
        ("finished_at", pa.timestamp("us", tz="UTC")),
        ("scoring_seconds", pa.float64()),
        ("torch_version", pa.string()),
        ("transformers_version", pa.string()),
    ]
)
# The columns that identify a stimulus, first in the scores and the stimulus indices.
STIMULUS_FIELDS = [
    ("run_id", pa.string()),
    ("stimulus_id", pa.int32()),
    ("msg_id", pa.int32()),
    ("group_name", pa.string()),
    ("sender_name", pa.string()),
    ("stimulus", pa.string()),
]
SCORES_SCHEMA = pa.schema(
    [
        *STIMULUS_FIELDS,
        ("candidate_id", pa.int32()),
        ("candidate", pa.string()),
        ("candidate_group", pa.string()),
        ("logprob", pa.float64()),
        ("n_tokens", pa.int32()),
        ("ppl", pa.float64()),
        ("prob_over_candidates", pa.float64()),
        ("token_logprobs", pa.list_(pa.float64())),
        ("token_ids", pa.list_(pa.int64())),
    ]
)
STIMULUS_INDICES_SCHEMA = pa.schema(
    [
        *STIMULUS_FIELDS,
        ("prompt", pa.string()),
        ("n_prompt_tokens", pa.int32()),
        ("index_reliable_like", pa.float64()),
        ("index_unreliable_like", pa.float64()),
        ("index_rel_minus_unrel", pa.float64()),
        ("top_choice", pa.string()),
        ("p_top", pa.float64()),
    ]
)
SCHEMAS = {
    "runs": RUNS_SCHEMA,
    "scores": SCORES_SCHEMA,
    "stimulus_indices": STIMULUS_INDICES_SCHEMA,
}
FINITE_COLUMNS = {
    "scores": ("logprob", "ppl", "prob_over_candidates", "token_logprobs"),
    "stimulus_indices": (
        "index_reliable_like",
        "index_unreliable_like",
        "index_rel_minus_unrel",
        "p_top",
    ),
}


class LandingError(ValueError):
    """A run cannot land: bad run id, wrong columns, or non-finite scores."""


def default_landing_dir() -> Path:
    """CONCORD_LANDING_DIR, else warehouse/landing under the project root (as dbt reads it)."""
    configured = os.environ.get("CONCORD_LANDING_DIR")
    if configured:
        path = Path(configured)
        return path if path.is_absolute() else PROJECT_ROOT / path
    return PROJECT_ROOT / "warehouse" / "landing"


def check_run_id(run_id: str) -> str:
    if not RUN_ID_PATTERN.match(run_id):
        raise LandingError(
            f"run id {run_id!r}: use 1-128 letters, digits, '_', '-', '.', starting with a "
            "letter or digit"
        )
    return run_id


def run_dir(landing_dir: Path | str, run_id: str) -> Path:
    return Path(landing_dir) / "probe" / f"run_id={check_run_id(run_id)}"


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


def to_table(name: str, rows: list[dict]) -> pa.Table:
    """Rows as a table with the landing schema of ``name`` (missing or extra keys fail)."""
    schema = SCHEMAS[name]
    for i, row in enumerate(rows):
        if set(row) != set(schema.names):
            raise LandingError(
                f"{name} row {i}: columns {sorted(row)} differ from {sorted(schema.names)}"
            )
    return pa.Table.from_pylist(rows, schema=schema)


def _publish(staging: Path, final: Path) -> None:
    """Rename the finished folder into place, replacing an earlier landing of the run."""
    if final.exists():
        aside = final.with_name(f".old-{final.name}-{uuid.uuid4().hex}")
        final.rename(aside)
        staging.rename(final)
        shutil.rmtree(aside)
    else:
        staging.rename(final)


def _recover(final: Path) -> None:
    """Undo a replacement cut off between its two renames: the run folder is gone and its
    previous version waits under .old-*; put that back (the newest, if several)."""
    if final.exists():
        return
    aside = sorted(final.parent.glob(f".old-{final.name}-*"), key=lambda p: p.stat().st_mtime)
    if aside:
        aside[-1].rename(final)


def land_run(landing_dir: Path | str, run_id: str, tables: dict[str, pa.Table]) -> Path:
    """Validate, write to a hidden folder, fsync, and rename to run_id=<id>; returns the folder.

    A landing killed between the two renames of a replacement leaves the earlier version
    under .old-*: the next landing of that run id puts it back before replacing it.
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
    _recover(final)
    staging = final.with_name(f".tmp-{final.name}-{uuid.uuid4().hex}")
    staging.mkdir()
    try:
        for name, table in tables.items():
            path = staging / f"{name}.parquet"
            pq.write_table(table, path)
            with path.open("rb") as handle:
                os.fsync(handle.fileno())
        _publish(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return final
