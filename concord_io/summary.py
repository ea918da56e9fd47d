"""Print where the warehouse is and a short summary of its marts (run by `make build`)."""

from __future__ import annotations

import argparse
from pathlib import Path

import duckdb


def summarise(database: Path) -> str:
    lines = [f"Warehouse: {database.resolve()}"]
    with duckdb.connect(str(database), read_only=True) as con:
        marts = con.execute(
            "select table_name from information_schema.tables "
            "where table_schema = 'marts' order by table_name"
        ).fetchall()
        lines.append(f"{len(marts)} marts in schema marts:")
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
    parser.add_argument("--database", type=Path, default=Path("warehouse/concord.duckdb"))
    args = parser.parse_args()
    print(summarise(args.database))


if __name__ == "__main__":
    main()
