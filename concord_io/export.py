"""The reference's six CSV files, written from the probe marts of one run.

The database is opened read-only, so an export can run beside BI readers (not during a build).
Column names follow the reference (group, name); the values are those of the marts.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from probe.stimuli import PROJECT_ROOT

# file name -> query over the marts of one run ($run_id), in the reference's naming
EXPORTS = {
    "stimuli_ambiguous_10_two_names.csv": """
        select msg_id, group_name as "group", sender_name as name, stimulus as text
        from marts.probe_indices_per_name where run_id = $run_id
        order by msg_id, stimulus_id""",
    "results_indices_reliability_per_name.csv": """
        select msg_id, group_name as "group", sender_name as name, index_reliable_like,
               index_unreliable_like, index_rel_minus_unrel, top_choice, p_top
        from marts.probe_indices_per_name where run_id = $run_id
        order by msg_id, stimulus_id""",
    "results_indices_reliability_group_avg.csv": """
        select msg_id, group_name as "group", index_reliable_like, index_unreliable_like,
               index_rel_minus_unrel
        from marts.probe_indices_group_avg where run_id = $run_id
        order by msg_id, group_name""",
    "results_summary_reliability_per_name.csv": """
        select group_name as "group", * exclude (run_id, group_name)
        from marts.probe_summary_per_name where run_id = $run_id
        order by group_name""",
    "results_summary_reliability_group_avg.csv": """
        select group_name as "group", * exclude (run_id, group_name)
        from marts.probe_summary_group_avg where run_id = $run_id
        order by group_name""",
    "results_paired_summary_reliability_group_avg.csv": """
        select group_name as "group", * exclude (run_id, group_name)
        from marts.probe_paired_summary where run_id = $run_id
        order by group_name""",
}


def default_db_path() -> Path:
    configured = os.environ.get("CONCORD_DB_PATH")
    if configured:
        path = Path(configured)
        return path if path.is_absolute() else PROJECT_ROOT / path
    return PROJECT_ROOT / "warehouse" / "concord.duckdb"


def latest_run_id(con: duckdb.DuckDBPyConnection) -> str:
    rows = con.execute(
        "select run_id from staging.stg_probe__runs order by finished_at desc, run_id limit 1"
    ).fetchall()
    if not rows:
        raise LookupError("no probe run in the warehouse: run the probe, then dbt build")
    return rows[0][0]


def export_run(
    out_dir: Path | str | None = None, run_id: str | None = None, db_path: Path | str | None = None
) -> list[Path]:
    """Write the six CSV files of ``run_id`` (default: the latest run) into ``out_dir``."""
    db_path = Path(db_path) if db_path else default_db_path()
    if not db_path.is_file():
        raise FileNotFoundError(f"{db_path}: no warehouse database; run dbt build first")
    with duckdb.connect(str(db_path), read_only=True) as con:
        run_id = run_id or latest_run_id(con)
        known = con.execute(
            "select count(*) from marts.probe_indices_per_name where run_id = $run_id",
            {"run_id": run_id},
        ).fetchall()[0][0]
        if not known:
            raise LookupError(f"run {run_id!r} is not in the probe marts (dbt build after it?)")
        out = (
            Path(out_dir) if out_dir else PROJECT_ROOT / "warehouse" / "exports" / "probe" / run_id
        )
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name, query in EXPORTS.items():
            frame = con.execute(query, {"run_id": run_id}).df()
            path = out / name
            frame.to_csv(path, index=False)
            written.append(path)
    return written
