"""Benchmark: `dbt build` of the cross-lingual marts vs the study's own pandas code.

Sizes: the shipped 60 items x 8 files, then generated files of N items x 20 files. Both
sides run in subprocesses on the same files in one run; we report wall time, peak memory
(max RSS) and time per answer row. The baseline's bootstrap loop (1000 iterations of
df.sample per function, two functions per file) is timed on a subset of iterations at the
large sizes and extrapolated linearly (each iteration does the same work); the rest of the
baseline is timed in full. Ours draws 10 000 resamples (the dbt var default), the baseline
1000. Results: bench/results/mcq.json and bench/results/mcq.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from concord_io.project import DBT, copy_project  # noqa: E402

BASELINE_ITERATIONS = 1000


def _measure(code: str) -> dict:
    """Run python code in a fresh interpreter; it prints a JSON dict; add its peak RSS."""
    wrapper = (
        "import json, resource, sys\n"
        + code
        + "\nresult['peak_rss_mb'] = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,"
        " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024\n"
        "print(json.dumps(result))"
    )
    out = subprocess.run(
        [sys.executable, "-c", wrapper],
        capture_output=True,
        text=True,
        cwd=HERE.parent,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-4000:] + out.stdout[-4000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_ours(project: Path) -> dict:
    """Time `dbt build` of the cross-lingual marts and their tests. The project is parsed
    once before (dbt keeps the parse between builds, as on a user's machine)."""
    database = project / "warehouse" / "bench.duckdb"
    dbt_args = ["--profiles-dir", ".", "--project-dir", "."]
    code = f"""
import os, subprocess, time
env = dict(os.environ, CONCORD_DB_PATH={str(database)!r})
subprocess.run([{str(DBT)!r}, 'parse', *{dbt_args!r}], cwd={str(project)!r}, env=env,
               capture_output=True, check=True)
start = time.perf_counter()
p = subprocess.run([{str(DBT)!r}, 'build', '--select', '+path:models/marts/mcq',
                    *{dbt_args!r}],
                   cwd={str(project)!r}, env=env, capture_output=True, text=True)
elapsed = time.perf_counter() - start
if p.returncode != 0:
    raise SystemExit(p.stdout[-4000:])
result = {{'seconds': elapsed}}
"""
    return _measure(code)


def run_baseline(project: Path, iterations: int) -> dict:
    """Times the baseline; the bootstrap loop at `iterations` and 3x that, so the 1000-
    iteration time is extrapolated from the slope (file reads are not multiplied)."""
    code = f"""
import time, pandas as pd
import study_baseline as sb
from pathlib import Path
root = Path({str(project)!r}) / 'seeds' / 'mcq'
registry = pd.read_csv(root / 'mcq_answer_registry.csv')
files = [(str(root / 'answers' / f), p) for f, p in zip(registry.file, registry.prefix)]
start = time.perf_counter()
sb.analyse(files, with_bootstrap=False)
fixed = time.perf_counter() - start
def boot(k):
    start = time.perf_counter()
    for path, p in files:
        sb.bootstrap_agreement_confidence_interval(path, p, k)
        sb.bootstrap_disagreement_confidence_interval(path, p, k)
    return time.perf_counter() - start
k1, k2 = {iterations}, min(3 * {iterations}, {BASELINE_ITERATIONS})
t1 = boot(k1)
t2 = boot(k2) if k2 > k1 else t1
per_iteration = (t2 - t1) / (k2 - k1) if k2 > k1 else 0.0
boot_full = t1 + per_iteration * ({BASELINE_ITERATIONS} - k1)
result = {{'fixed_seconds': fixed, 'bootstrap_seconds': boot_full,
          'bootstrap_iterations_timed': [k1, k2],
          'extrapolated': k1 != {BASELINE_ITERATIONS},
          'seconds': fixed + boot_full}}
"""
    code = f"import sys; sys.path.insert(0, {str(HERE)!r})\n" + code
    return _measure(code)


def bench_size(n_items: int | None, n_files: int, iterations: int) -> dict:
    from generate_mcq import generate

    with tempfile.TemporaryDirectory() as tmp:
        project = copy_project(Path(tmp) / "project")
        (project / "warehouse").mkdir()
        if n_items is not None:
            generate(project, n_items, n_files, seed=0)
        ours = run_ours(project)
        baseline = run_baseline(project, iterations)
    items = 60 if n_items is None else n_items
    rows = items * n_files * 3
    return {
        "items": items,
        "files": n_files,
        "answer_rows": rows,
        "shipped_data": n_items is None,
        "ours": ours,
        "baseline": baseline,
        "speedup": baseline["seconds"] / ours["seconds"],
        "ours_us_per_row": 1e6 * ours["seconds"] / rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, seconds")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    if args.quick:
        plan = [(None, 8, 10), (300, 4, 5)]
    else:
        plan = [
            (None, 8, BASELINE_ITERATIONS),
            (25_000, 20, 10),
            (50_000, 20, 10),
            (100_000, 20, 10),
        ]
    results = []
    for n_items, n_files, iterations in plan:
        print(f"size {n_items or 60} items x {n_files} files ...", flush=True)
        results.append(bench_size(n_items, n_files, iterations))
        print(json.dumps(results[-1]), flush=True)
    report = {
        "benchmark": "mcq",
        "quick": args.quick,
        "machine": {
            "python": platform.python_version(),
            "cpu_count": __import__("os").cpu_count(),
            "platform": platform.platform(),
        },
        "results": results,
    }
    name = "mcq_quick" if args.quick else "mcq"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{name}.json").write_text(json.dumps(report, indent=2))
    lines = [
        "| items x files | answer rows | dbt build (s) | peak MB | study pandas (s) | "
        "peak MB | speed-up | µs per row (ours) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['items']:,} x {r['files']}{' (shipped)' if r['shipped_data'] else ''} | "
            f"{r['answer_rows']:,} | {r['ours']['seconds']:.1f} | {r['ours']['peak_rss_mb']:.0f} | "
            f"{r['baseline']['seconds']:.1f} | {r['baseline']['peak_rss_mb']:.0f} | "
            f"{r['speedup']:.1f}x | {r['ours_us_per_row']:.2f} |"
        )
    (args.out / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
