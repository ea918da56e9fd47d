"""Print where the warehouse is and a short summary of its marts (run by `make build`)."""

from __future__ import annotations

import argparse
from pathlib import Path

import duckdb

from concord_io.paths import build_db_path
from concord_io.publish import CURRENT_DB, CURRENT_PARQUET, SCHEMA


def summarise(
    database: Path, serving_dir: Path | None = None, report_dir: Path | None = None
) -> str:
    lines = [f"Warehouse (build file): {database.resolve()}"]
    if serving_dir is not None and (serving_dir / CURRENT_DB).exists():
        lines.append(f"Serving file (connect here): {(serving_dir / CURRENT_DB).absolute()}")
        lines.append(f"Parquet exports: {(serving_dir / CURRENT_PARQUET).absolute()}")
    if report_dir is not None and (report_dir / "index.html").exists():
        lines.append(f"Report: {(report_dir / 'index.html').absolute()}")
    with duckdb.connect(str(database), read_only=True) as con:
        marts = con.execute(
            "select table_name from information_schema.tables "
            "where table_schema = ? order by table_name",
            [SCHEMA],
        ).fetchall()
        lines.append(f"{len(marts)} marts in schema {SCHEMA}:")
        for (name,) in marts:
            (n_rows,) = con.execute(f'select count(*) from marts."{name}"').fetchone()
            lines.append(f"  {name:<36} {n_rows:>8} rows")
        if ("mcq_agreement_summary",) in marts:
            lines.append("Cross-lingual full agreement (base runs):")
            for model, pct, low, high in con.execute(
                "select model, agreement_pct, agreement_ci_low, agreement_ci_high "
                "from marts.mcq_agreement_summary where run = 'base' "
                "order by agreement_pct desc"
            ).fetchall():
                lines.append(f"  {model:<16} {pct:5.1f} %  [{low:5.1f}, {high:5.1f}]")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database", type=Path, default=build_db_path())
    parser.add_argument("--serving-dir", type=Path, default=None)
    parser.add_argument("--report-dir", type=Path, default=None)
    args = parser.parse_args()
    print(summarise(args.database, args.serving_dir, args.report_dir))


if __name__ == "__main__":
    main()
