"""The dbt Python models' results of a DuckDB build, as one Parquet file per model.

dbt-spark runs no Python model on open-source Spark. The `spark` target loads these files
in their place (var spark_python_results_dir, env CONCORD_SPARK_PYTHON_RESULTS), so every
SQL model and test downstream of a Python model builds on Spark too:

    python -m concord_io.python_results --out warehouse/python_results
    CONCORD_SPARK_PYTHON_RESULTS=warehouse/python_results dbt build --target spark
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from concord_io import paths
from concord_io.connect import open_duckdb
from concord_io.errors import ConcordError, run_main


def python_models(manifest_path: Path) -> list[tuple[str, str]]:
    """(schema, name) of every enabled dbt Python model in the manifest, by name."""
    try:
        manifest = json.loads(Path(manifest_path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConcordError(
            f"no dbt manifest at {manifest_path}", hint="run dbt build (or make build) first"
        ) from None
    return sorted(
        (node["schema"], node["name"])
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model" and node.get("language") == "python"
    )


def write_python_results(database: Path, manifest_path: Path, out_dir: Path) -> list[Path]:
    """Copy each Python model's table from the DuckDB build to ``out_dir/<model>.parquet``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with open_duckdb(database, read_only=True) as con:
        for schema, name in python_models(manifest_path):
            target = paths.inside(out_dir, f"{name}.parquet", what="results file")
            con.execute(f"copy {schema}.{name} to '{target}' (format parquet)")
            written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", type=Path, default=None)
    parser.add_argument(
        "--manifest", type=Path, default=None, help="default: the project's target/manifest.json"
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    args.database = args.database or paths.build_db_path()
    args.manifest = args.manifest or paths.project_root() / "target" / "manifest.json"
    if not args.database.exists():
        raise ConcordError(f"no build database at {args.database}", hint="run make build first")
    written = write_python_results(args.database, args.manifest, args.out)
    print(f"wrote {len(written)} Python models' results to {args.out}")
    return 0


if __name__ == "__main__":
    run_main(main)
