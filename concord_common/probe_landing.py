"""The probe's landing tables (docs/probe.md, "The landing"), in the one place both sides
read them: the probe writes its runs with them, and the warehouse's reader writes the
empty tables Spark reads before the first run (concord_io.landing.engine); and the
listing of the landed runs, which the probe (``probe runs``) and ``concord status`` both
show."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from concord_common import UserError

RUNS_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("model", pa.string()),
        ("config_hash", pa.string()),
        ("design_hash", pa.string()),
        ("tokenizer", pa.string()),
        ("dtype", pa.string()),
        ("device", pa.string()),
        ("device_map", pa.string()),
        ("revision", pa.string()),
        ("attention", pa.string()),
        ("batch_size", pa.int32()),
        ("world_size", pa.int32()),
        ("rank_requests", pa.list_(pa.int32())),
        ("rank_tokens", pa.list_(pa.int64())),
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
        ("token_logprobs", pa.list_(pa.float64())),
        ("token_ids", pa.list_(pa.int64())),
    ]
)
STIMULI_SCHEMA = pa.schema(
    [
        *STIMULUS_FIELDS,
        ("prompt", pa.string()),
        ("n_prompt_tokens", pa.int32()),
    ]
)
SCHEMAS = {"runs": RUNS_SCHEMA, "scores": SCORES_SCHEMA, "stimuli": STIMULI_SCHEMA}


def landed_run_ids(landing_dir: Path | str) -> set[str]:
    """The run ids with a folder the dbt glob reads (``<landing>/probe/run_id=*``); a
    landing folder (or its ``probe``) that is a file is refused."""
    folder = Path(landing_dir) / "probe"
    for path in (Path(landing_dir), folder):
        if path.exists() and not path.is_dir():
            raise UserError(
                f"landing folder {path} is a file, not a folder",
                hint="pass --landing-dir a folder, or set CONCORD_LANDING_DIR to one",
            )
    if not folder.is_dir():
        return set()
    # run_id=_empty: the warehouse reader's empty tables before the first run (Spark reads
    # them: concord_io.landing.engine), never a run
    return {
        p.name.removeprefix("run_id=")
        for p in folder.glob("run_id=*")
        if p.is_dir() and p.name != "run_id=_empty"
    }


def list_runs(landing_dir: Path | str) -> list[dict]:
    """One dict per landed run: run id, model, design hash, dtype, world size, finish time
    and size on disk; a folder whose runs.parquet cannot be read is listed with its reason."""
    rows = []
    for run_id in sorted(landed_run_ids(landing_dir)):
        folder = Path(landing_dir) / "probe" / f"run_id={run_id}"  # a folder the glob found
        size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        row = {"run_id": run_id, "folder": folder, "bytes": size}
        try:
            meta = pq.read_table(folder / "runs.parquet").to_pylist()[0]
            row.update(
                model=meta["model"],
                design_hash=meta["design_hash"],
                dtype=meta["dtype"],
                world_size=meta.get("world_size"),
                finished_at=meta["finished_at"],
            )
        except (OSError, IndexError, KeyError, pa.ArrowException) as error:
            row["problem"] = f"runs.parquet unreadable: {error}"
        rows.append(row)
    return rows
