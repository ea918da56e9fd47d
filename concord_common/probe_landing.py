"""The probe's landing tables (docs/probe.md, "The landing") as their one declaration, the
source ``probe_landing``, states them: the probe writes its runs with them, and the
warehouse's reader writes the empty tables Spark reads before the first run
(concord_io.landing.engine); and the listing of the landed runs, which the probe (``probe
runs``) and ``concord status`` both show."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from concord_common import UserError
from concord_common.landing_declaration import declaration_file, declared_tables

#: The probe's landed tables, declared once: the columns of the source ``probe_landing``.
PROBE_DECLARATION = "models/staging/probe/_probe__sources.yml"
SCHEMAS = declared_tables(declaration_file(PROBE_DECLARATION), "probe_landing")
RUNS_SCHEMA, SCORES_SCHEMA, STIMULI_SCHEMA = (SCHEMAS[t] for t in ("runs", "scores", "stimuli"))


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
