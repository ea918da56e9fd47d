"""Benchmark: a primary-key constraint against a uniqueness test, on a big fact table.

The marts declare their keys as contract constraints (DuckDB builds an ART index and checks
each insert), except ``fct_mcq_item_agreement``, one row per model, run and item, which at
10⁸ answers holds 3·10⁷ rows. This measures, at the table sizes given, under Concord's
default memory limit (CONCORD_MEMORY_LIMIT, concord_io.connect): writing the table

* ``plain``: ``create table … as select`` (no constraint), then the uniqueness test's query
  (dbt's ``unique_combination_of_columns``: group by the key, having count > 1);
* ``primary key``: ``create table (…, primary key (model, run, item_id))`` then
  ``insert … select`` (what dbt-duckdb does for a contracted model).

Each size and variant runs in a fresh subprocess (peak RSS of that process). Writes
bench/results/constraints.{json,md} (``--out`` to change).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

ROWS = [1_000_000, 10_000_000, 30_000_000]
COLUMNS = (
    "model varchar, run varchar, item_id bigint, domain varchar, answer_en varchar, "
    "answer_it varchar, answer_fa varchar, full_agreement boolean, disagreement_type varchar"
)
# n rows: 50 models x 2 runs x n / 100 items, letters from the row number
SOURCE = """
select 'model_' || (i % 50) as model, case when (i // 50) % 2 = 0 then 'base' else 'shuffled' end
       as run, i // 100 as item_id, 'domain_' || (i % 17) as domain,
       chr(cast(65 + i % 4 as integer)) as answer_en,
       chr(cast(65 + (i // 3) % 4 as integer)) as answer_it,
       chr(cast(65 + (i // 7) % 4 as integer)) as answer_fa, i % 5 = 0 as full_agreement,
       'all_same' as disagreement_type
from range({n}) t(i)
"""
UNIQUE_TEST = (
    "select count(*) from (select model, run, item_id from fact "
    "group by model, run, item_id having count(*) > 1)"
)


def one(n: int, variant: str) -> dict:
    from concord_io.connect import open_duckdb

    with tempfile.TemporaryDirectory() as folder:
        con = open_duckdb(Path(folder) / "fact.duckdb")
        con.execute(f"create table source as {SOURCE.format(n=n)}")
        con.execute("checkpoint")
        start = time.perf_counter()
        if variant == "plain":
            con.execute("create table fact as select * from source")
            written = time.perf_counter()
            (duplicates,) = con.execute(UNIQUE_TEST).fetchone()
            assert duplicates == 0
        else:
            con.execute(f"create table fact ({COLUMNS}, primary key (model, run, item_id))")
            con.execute("insert into fact select * from source")
            written = time.perf_counter()
        total = time.perf_counter() - start
        con.execute("checkpoint")
        size = sum(f.stat().st_size for f in Path(folder).iterdir())
        con.close()
    return {
        "rows": n,
        "variant": variant,
        "write_s": round(written - start, 3),
        "total_s": round(total, 3),
        "file_bytes": size,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=ROWS)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(int(args.one[0]), args.one[1])))
        return
    results = []
    for n in args.rows:
        for variant in ("plain", "primary key"):
            done = subprocess.run(
                [sys.executable, __file__, "--one", str(n), variant],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                line = (done.stderr.strip().splitlines() or ["?"])[-1]
                results.append({"rows": n, "variant": variant, "error": line[:300]})
            else:
                results.append(json.loads(done.stdout))
            print(results[-1], flush=True)
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    meta = {"python": platform.python_version(), "machine": platform.machine(), "load": load}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "constraints.json").write_text(json.dumps({"meta": meta, "results": results}))
    lines = [
        "# A primary key against a uniqueness test on the item-level fact table",
        "",
        "`python bench/bench_constraints.py`: each row a fresh process, DuckDB with Concord's",
        "memory limit; `plain` = create table as select, then the uniqueness test's query;",
        "`primary key` = create table with the key, then insert (what dbt-duckdb does for a",
        f"contracted model). Load average at the end: {load}.",
        "",
        "| rows | variant | write (s) | write + test (s) | file (MB) | peak RSS (MB) |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['rows']:,} | {r['variant']} | failed: {r['error']} | | | |")
        else:
            lines.append(
                f"| {r['rows']:,} | {r['variant']} | {r['write_s']} | {r['total_s']} | "
                f"{r['file_bytes'] / 1e6:.0f} | {r['peak_rss_mb']} |"
            )
    (args.out / "constraints.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
