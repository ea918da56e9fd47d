"""Write the tables of docs/landing.md ("## Tables": runs, answers, ...) from their one
declaration, the source ``mcq_landing`` (models/staging/mcq/_mcq__sources.yml): one row per
column, its Arrow type, whether it may be null and what it means.

    python scripts/landing_docs.py           # rewrite docs/landing.md's tables
    python scripts/landing_docs.py --check   # exit 1, naming the table, where one is stale
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from concord_common.project_dir import project_yaml
from concord_io.landing.schemas import LANDING_SOURCE, LANDING_SOURCES

DOC = Path(__file__).resolve().parents[1] / "docs" / "landing.md"
HEADER = "| column | type | null | meaning |\n|---|---|---|---|\n"


def table_rows(table: dict) -> str:
    """The markdown table of one declared table."""
    rows = []
    for column in table["columns"]:
        meta = (column.get("config") or {}).get("meta") or {}
        null = "yes" if meta.get("nullable") else "no"
        meaning = " ".join(str(column["description"]).split())
        rows.append(f"| `{column['name']}` | {column['data_type']} | {null} | {meaning} |\n")
    return HEADER + "".join(rows)


def written(text: str) -> tuple[str, list[str]]:
    """``text`` with each declared table's markdown table written again, and the tables
    that changed."""
    (source,) = [s for s in project_yaml(LANDING_SOURCES)["sources"] if s["name"] == LANDING_SOURCE]
    changed = []
    for table in source["tables"]:
        # the first markdown table after the table's heading
        pattern = re.compile(
            rf"(\n### {re.escape(table['name'])}\n(?:(?!\n#).)*?\n)(\| column \|.*?\n)(?!\|)",
            re.S,
        )
        found = pattern.search(text)
        if found is None:
            raise SystemExit(f"{DOC}: no table under '### {table['name']}'")
        new = table_rows(table)
        if found.group(2) != new:
            changed.append(table["name"])
            text = text[: found.start(2)] + new + text[found.end(2) :]
    return text, changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether a table is stale")
    args = parser.parse_args(argv)
    text, changed = written(DOC.read_text(encoding="utf-8"))
    if args.check:
        for name in changed:
            print(f"docs/landing.md: table {name} differs from {LANDING_SOURCES.name}; "
                  "run python scripts/landing_docs.py")  # fmt: skip
        return 1 if changed else 0
    DOC.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
