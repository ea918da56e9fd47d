"""Benchmark: all pairwise Kendall tau-b, vectorised vs a loop over scipy.stats.kendalltau.

Problem: N raters x Q scenarios x T tasks (default 50 x 100 000 x 5, random strict
rankings); compute K_ij = mean over scenarios of tau_b(rater i, rater j) for every pair.

* vectorised: ``concord_stats.kendall.pairwise_mean_tau_b`` (pair signs -> one matrix
  product per chunk of 10 000 scenarios), timed at Q/8, Q/4, Q/2 and Q, each in a fresh
  subprocess (best of ``--repeat`` runs; peak RSS of that process, input array included,
  and tracemalloc's peak of the call itself) to show linear growth and flat memory;
* loop: ``scipy.stats.kendalltau(x, y, variant='b')`` per unordered pair i < j and scenario
  (N (N - 1) / 2 x Q calls, the least a loop must do), timed on ``--loop-calls`` random
  (pair, scenario) cells and extrapolated; the loop's values are checked against the
  vectorised per-scenario tau-b on those cells in the same run.

Writes bench/results/kendall.json and bench/results/kendall.md (``--out`` to change);
``--quick`` runs a tiny size in seconds (used by tests/python/test_bench_kendall.py).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy

from concord_io.project import PROJECT_ROOT as ROOT
from concord_stats.kendall import (
    orders_to_ranks,
    pairwise_mean_tau_b,
    pairwise_tau_b,
)

SEED = 20250505


def make_ranks(n_raters: int, n_scenarios: int, n_tasks: int, seed: int = SEED) -> np.ndarray:
    """Random strict rankings as float ranks (N, Q, T): orders converted to ranks."""
    rng = np.random.default_rng(seed)
    orders = rng.random((n_raters, n_scenarios, n_tasks)).argsort(axis=-1)
    return orders_to_ranks(orders).astype(float)


def vectorised_worker(n_raters: int, n_scenarios: int, n_tasks: int, repeat: int) -> dict:
    """One size in this process: best-of time, tracemalloc peak of one call, max RSS."""
    ranks = make_ranks(n_raters, n_scenarios, n_tasks)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        mean, count = pairwise_mean_tau_b(ranks)
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    pairwise_mean_tau_b(ranks)
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "n_scenarios": n_scenarios,
        "seconds": min(times),
        "seconds_all": times,
        "call_peak_mb": traced_peak / 2**20,
        "input_mb": ranks.nbytes / 2**20,
        "process_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "mean_offdiagonal_tau": float(mean[~np.eye(n_raters, dtype=bool)].mean()),
        "min_count": int(count.min()),
    }


def run_vectorised(n_raters: int, n_scenarios: int, n_tasks: int, repeat: int) -> dict:
    command = [
        sys.executable,
        __file__,
        "--worker",
        "--raters",
        str(n_raters),
        "--scenarios",
        str(n_scenarios),
        "--tasks",
        str(n_tasks),
        "--repeat",
        str(repeat),
    ]
    out = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_loop(n_raters: int, n_scenarios: int, n_tasks: int, loop_calls: int) -> dict:
    """Time scipy.stats.kendalltau on random (pair, scenario) cells; check the values."""
    from scipy.stats import kendalltau

    ranks = make_ranks(n_raters, n_scenarios, n_tasks)
    rng = np.random.default_rng(SEED + 1)
    pairs = np.array(np.triu_indices(n_raters, k=1)).T
    cells = [
        (*pairs[rng.integers(len(pairs))], rng.integers(n_scenarios)) for _ in range(loop_calls)
    ]
    start = time.perf_counter()
    values = [kendalltau(ranks[i, q], ranks[j, q], variant="b").statistic for i, j, q in cells]
    seconds = time.perf_counter() - start
    # The vectorised per-scenario tau-b on the same cells (outside the timing).
    rows = np.array([c[0] for c in cells])
    cols = np.array([c[1] for c in cells])
    scen = np.array([c[2] for c in cells])
    ours = pairwise_tau_b(ranks[:, np.unique(scen)])
    ours_cells = ours[rows, cols, np.searchsorted(np.unique(scen), scen)]
    n_calls_full = len(pairs) * n_scenarios
    return {
        "calls_timed": loop_calls,
        "seconds_timed": seconds,
        "seconds_per_call": seconds / loop_calls,
        "calls_full": n_calls_full,
        "seconds_extrapolated": seconds / loop_calls * n_calls_full,
        "max_abs_difference_vs_vectorised": float(np.max(np.abs(np.array(values) - ours_cells))),
    }


def machine_info() -> dict:
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
    }


def render_markdown(result: dict) -> str:
    size = result["size"]
    full = result["vectorised"][-1]
    loop = result["loop"]
    lines = [
        "# Kendall tau-b: all rater pairs, vectorised vs scipy loop",
        "",
        f"{size['raters']} raters x {size['scenarios']:,} scenarios x {size['tasks']} tasks "
        f"(random strict rankings); {result['machine']['cpu_count']} CPUs, "
        f"{result['machine']['platform']}, numpy {result['machine']['numpy']}, "
        f"scipy {result['machine']['scipy']}.",
        "",
        "| method | seconds | speed-up |",
        "|---|---:|---:|",
        f"| loop over `scipy.stats.kendalltau` ({loop['calls_full']:,} calls, "
        f"extrapolated from {loop['calls_timed']:,}) | {loop['seconds_extrapolated']:,.0f} | 1x |",
        f"| `pairwise_mean_tau_b` (vectorised, chunked) | {full['seconds']:.3f} | "
        f"{result['speedup']:,.0f}x |",
        "",
        "| scenarios | seconds (best of runs) | call peak MB (tracemalloc) | process peak RSS MB |",
        "|---:|---:|---:|---:|",
    ]
    for row in result["vectorised"]:
        lines.append(
            f"| {row['n_scenarios']:,} | {row['seconds']:.3f} | {row['call_peak_mb']:.0f} | "
            f"{row['process_peak_rss_mb']:.0f} |"
        )
    lines += [
        "",
        f"Growth: time ~ scenarios^{result['scaling_exponent']:.2f} (log-log slope; 1 = "
        f"linear). Loop values agree with the vectorised per-scenario tau-b to "
        f"{loop['max_abs_difference_vs_vectorised']:.1e} on the timed cells. Targets: >= 500x, "
        "< 4 GB, linear growth.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raters", type=int, default=50)
    parser.add_argument("--scenarios", type=int, default=100_000)
    parser.add_argument("--tasks", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--loop-calls", type=int, default=20_000)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, runs in seconds")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(vectorised_worker(args.raters, args.scenarios, args.tasks, args.repeat)))
        return {}
    if args.quick:
        args.raters, args.scenarios, args.repeat, args.loop_calls = 6, 4_000, 1, 300

    sizes = [args.scenarios // 8, args.scenarios // 4, args.scenarios // 2, args.scenarios]
    vectorised = [run_vectorised(args.raters, q, args.tasks, args.repeat) for q in sizes]
    loop = run_loop(args.raters, args.scenarios, args.tasks, args.loop_calls)
    slope = np.polyfit(np.log(sizes), np.log([row["seconds"] for row in vectorised]), 1)[0]
    result = {
        "benchmark": "kendall",
        "quick": args.quick,
        "size": {"raters": args.raters, "scenarios": args.scenarios, "tasks": args.tasks},
        "machine": machine_info(),
        "vectorised": vectorised,
        "loop": loop,
        "speedup": loop["seconds_extrapolated"] / vectorised[-1]["seconds"],
        "scaling_exponent": float(slope),
        "targets": {"speedup_min": 500, "memory_max_mb": 4096, "scaling": "linear"},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "kendall.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "kendall.md").write_text(render_markdown(result))
    print(render_markdown(result))
    return result


if __name__ == "__main__":
    main()
