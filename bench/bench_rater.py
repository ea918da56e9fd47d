"""Benchmark: rater measures for 1 000 000 items x 20 raters x 10 categories.

In one run, on the same generated ratings (each rater copies the item's "true" category with
probability 0.6, otherwise picks uniformly), each side in its own fresh interpreter so that
peak memory (max RSS) is its own:

* kappa: ours (``category_counts`` + ``fleiss_kappa``) vs statsmodels (``aggregate_raters`` +
  ``fleiss_kappa``), from the items x raters codes; target: within 3x of statsmodels.
* per-item measures: ours (``item_measures``, vectorised over items) vs a per-item Python loop
  of the reference document's formulas (DI, Pi, GD, entropy, Simpson, as its JavaScript
  computes them, plus the other columns item_measures returns, so both compute the same).
  The loop is timed on a subset and extrapolated linearly (every item costs the same); the
  two are timed alternately in one process so that a busy machine slows both alike;
  target: >= 50x faster.
* the SQL macros of macros/rater_measures.sql in DuckDB over the long counts table
  (items x categories rows), as int_rater_items_measured runs them.

Times are the best of ``--repeat`` runs (the loop's too, on its subset).
Memory target: peak RSS under 4 GB.
Results: bench/results/rater.json and bench/results/rater.md (``--quick``: rater_quick.*).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from concord_io.paths import PROJECT_ROOT as ROOT

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


# --------------------------------------------------------------------------------------------
# data and the sides (run inside a worker process)
# --------------------------------------------------------------------------------------------
def generate_codes(n_items: int, n_raters: int, n_categories: int, seed: int) -> np.ndarray:
    """items x raters category codes (int8), generated in chunks to keep memory low."""
    rng = np.random.default_rng(seed)
    codes = np.empty((n_items, n_raters), dtype=np.int8)
    chunk = 100_000
    for start in range(0, n_items, chunk):
        rows = min(chunk, n_items - start)
        truth = rng.integers(0, n_categories, size=(rows, 1))
        noise = rng.integers(0, n_categories, size=(rows, n_raters))
        copies = rng.random((rows, n_raters)) < 0.6
        codes[start : start + rows] = np.where(copies, truth, noise)
    return codes


def best_of(repeat: int, fn):
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), value


def side_ours(codes: np.ndarray, k: int, repeat: int, **_) -> dict:
    from concord_stats.rater import category_counts, fleiss_kappa, item_measures

    seconds_counts, counts = best_of(repeat, lambda: category_counts(codes, k))
    seconds_kappa, kappa = best_of(repeat, lambda: fleiss_kappa(counts))
    seconds_items, measures = best_of(repeat, lambda: item_measures(counts, k))
    return {
        "seconds_aggregate": seconds_counts,
        "seconds_kappa": seconds_kappa,
        "seconds_aggregate_and_kappa": seconds_counts + seconds_kappa,
        "seconds_item_measures": seconds_items,
        "kappa": float(kappa),
        "mean_dispersion_index": float(np.nanmean(measures["dispersion_index"])),
    }


def side_statsmodels(codes: np.ndarray, k: int, repeat: int, **_) -> dict:
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    seconds_counts, (table, _) = best_of(repeat, lambda: aggregate_raters(codes))
    seconds_kappa, kappa = best_of(repeat, lambda: fleiss_kappa(table))
    return {
        "seconds_aggregate": seconds_counts,
        "seconds_kappa": seconds_kappa,
        "seconds_aggregate_and_kappa": seconds_counts + seconds_kappa,
        "kappa": float(kappa),
    }


def document_measures(cat_ns: list[int], k: int) -> tuple:
    """The reference document's JavaScript, one item at a time, extended to the same columns
    as item_measures (Pi, Gini–Simpson, entropy in bits, H / ln K, used categories, the
    null reason) so that both sides compute the same thing. Empty categories are skipped in
    the entropy, where the JavaScript returns NaN."""
    n = sum(cat_ns)
    used = sum(1 for c in cat_ns if c > 0)
    sum_n2 = sum(c * c for c in cat_ns)
    reason = "one rater" if n == 1 else None
    divergence = 1 if k == 1 else (k * (n * n - sum_n2)) / ((k - 1) * n * n)
    pi = (1 / (n * (n - 1))) * (sum_n2 - n)
    all_sum = 0
    for frequency in cat_ns:
        disagreement = n - frequency
        if frequency == 0:
            continue
        all_sum += disagreement if frequency == 1 else disagreement * frequency
    gd = all_sum / (n * (n - 1))
    shannon = 0.0
    for fk in cat_ns:
        if fk > 0:
            shannon += (fk / n) * math.log(fk / n)
    sum_fk = sum(fk * (fk - 1) for fk in cat_ns)
    simpson = 1 - sum_fk / (n * (n - 1))
    gini = 1 - sum_n2 / (n * n)
    h = -shannon
    return (
        divergence, pi, 1 - pi, gd, simpson, gini, h / math.log(2), h,
        h / math.log(k), h / math.log(n), n, used, reason,
    )  # fmt: skip


def side_items(codes: np.ndarray, k: int, loop_items: int, repeat: int, **_) -> dict:
    """Ours on all items and the loop on a subset, interleaved (ours, loop, ours, loop, ...)
    in one process so that a busy machine slows both alike; best of ``repeat`` each."""
    from concord_stats.rater import category_counts, item_measures

    counts = category_counts(codes, k)
    subset = counts[:loop_items].tolist()
    ours, loop = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        item_measures(counts, k)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        results = [document_measures(row, k) for row in subset]
        loop.append(time.perf_counter() - start)
    # the loop agrees with ours on the subset (sanity check, not timed)
    expected = item_measures(counts[:loop_items], k)["dispersion_index"]
    if not np.allclose([r[0] for r in results], expected, atol=1e-9):
        raise RuntimeError("the loop and item_measures disagree")
    return {
        "items_timed_by_loop": len(subset),
        "seconds_ours": min(ours),
        "seconds_loop_subset": min(loop),
        "seconds_loop": min(loop) * len(codes) / len(subset),
    }


def render_rater_macros():
    """macros/rater_measures.sql as Jinja macros (adapter.dispatch: duckdb__, then default__)."""
    import jinja2

    class Adapter:
        module = None

        def dispatch(self, name, macro_namespace=None):
            return getattr(self.module, f"duckdb__{name}", None) or getattr(
                self.module, f"default__{name}"
            )

    adapter = Adapter()
    env = jinja2.Environment()
    env.globals.update(adapter=adapter, **{"return": lambda value: value})
    adapter.module = env.from_string((ROOT / "macros" / "rater_measures.sql").read_text()).module
    return adapter.module


def duckdb_query(m) -> str:
    aggregated = f"""
        select item_id, sum(n_ratings) as n_raters, count(*) as n_categories,
               sum(case when n_ratings > 0 then 1 else 0 end) as n_categories_used,
               sum(n_ratings * n_ratings) as sum_sq,
               sum({m.rater_n_ln_n("n_ratings")}) as sum_n_ln_n
        from counts group by item_id
    """
    n, s, h, used, k = "n_raters", "sum_sq", "sum_n_ln_n", "n_categories_used", "n_categories"
    columns = {
        "dispersion_index": m.rater_dispersion_index(n, s, k),
        "fleiss_pi": m.rater_fleiss_pi(n, s),
        "one_minus_pi": m.rater_one_minus_pi(n, s),
        "group_disagreement": m.rater_group_disagreement(n, s),
        "simpson_index": m.rater_simpson_index(n, s),
        "gini_simpson": m.rater_gini_simpson(n, s),
        "entropy_bits": m.rater_entropy_bits(n, h, used),
        "entropy_nats": m.rater_entropy_nats(n, h, used),
        "entropy_norm_k": m.rater_entropy_norm_k(n, h, used, k),
        "entropy_norm_n": m.rater_entropy_norm_n(n, h, used),
        "null_reason": m.rater_null_reason(n, k),
    }
    select = ",\n".join(f"{sql} as {name}" for name, sql in columns.items())
    return f"create or replace table measures as select item_id, {select} from ({aggregated})"


def side_duckdb(codes: np.ndarray, k: int, repeat: int, **_) -> dict:
    import duckdb

    from concord_stats.rater import category_counts

    counts = category_counts(codes, k)
    n_items = counts.shape[0]
    long = {  # noqa: F841  (scanned by DuckDB by name)
        "item_id": np.repeat(np.arange(n_items, dtype=np.int64), k),
        "n_ratings": counts.ravel().astype(np.int64),
    }
    con = duckdb.connect()
    con.execute("create table counts as select * from long")
    del long, counts
    query = duckdb_query(render_rater_macros())
    seconds, _ = best_of(repeat, lambda: con.execute(query))
    mean_di = con.execute("select avg(dispersion_index) from measures").fetchone()[0]
    return {
        "rows": n_items * k,
        "threads": con.execute("select current_setting('threads')").fetchone()[0],
        "seconds_item_measures": seconds,
        "mean_dispersion_index": float(mean_di),
    }


SIDES = {
    "ours": side_ours,
    "statsmodels": side_statsmodels,
    "items": side_items,
    "duckdb": side_duckdb,
}


def worker(args) -> None:
    import resource

    codes = generate_codes(args.items, args.raters, args.categories, args.seed)
    result = SIDES[args.worker](
        codes, args.categories, repeat=args.repeat, loop_items=min(args.loop_items, args.items)
    )
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


# --------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------
def run_side(name: str, args) -> dict:
    command = [
        sys.executable, str(Path(__file__).resolve()), "--worker", name,
        "--items", str(args.items), "--raters", str(args.raters),
        "--categories", str(args.categories), "--seed", str(args.seed),
        "--repeat", str(args.repeat), "--loop-items", str(args.loop_items),
    ]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{name} failed:\n{out.stderr[-4000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def markdown(report: dict) -> str:
    s = report["sides"]
    size = report["size"]
    ratio = report["ratios"]
    lines = [
        f"# Rater measures benchmark ({size['items']:,} items x {size['raters']} raters x "
        f"{size['categories']} categories)",
        "",
        "| task | ours | baseline | ratio | target |",
        "|---|---|---|---|---|",
        "| Fleiss' kappa from codes (aggregate + kappa) "
        f"| {s['ours']['seconds_aggregate_and_kappa']:.3f} s "
        f"| statsmodels {s['statsmodels']['seconds_aggregate_and_kappa']:.3f} s "
        f"| ours / statsmodels = {ratio['kappa_ours_over_statsmodels']:.3f} | <= 3 |",
        f"| Fleiss' kappa from counts | {s['ours']['seconds_kappa']:.4f} s "
        f"| statsmodels {s['statsmodels']['seconds_kappa']:.4f} s "
        f"| {ratio['kappa_only_ours_over_statsmodels']:.3f} | |",
        f"| per-item measures, all items (timed interleaved with the loop) "
        f"| {s['items']['seconds_ours']:.3f} s "
        f"| Python loop {s['items']['seconds_loop']:.3f} s "
        f"(extrapolated from {s['items']['items_timed_by_loop']:,} items) "
        f"| loop / ours = {ratio['loop_over_ours_item_measures']:.0f}x | >= 50x |",
    ]
    if "duckdb" in s:
        lines.append(
            f"| per-item measures, SQL macros in DuckDB ({s['duckdb']['rows']:,} count rows, "
            f"{s['duckdb']['threads']} threads) | {s['duckdb']['seconds_item_measures']:.3f} s "
            f"| | loop / DuckDB = {ratio['loop_over_duckdb_item_measures']:.0f}x | |"
        )
    lines += [
        "",
        "Peak memory (max RSS, each side in its own process, data generation included): "
        + ", ".join(f"{name} {side['peak_rss_mb']:.0f} MB" for name, side in s.items())
        + " (target: ours under 4 GB).",
        f"Kappa: ours {s['ours']['kappa']:.12f}, statsmodels {s['statsmodels']['kappa']:.12f}.",
        "",
        f"Machine: {report['machine']['platform']}, {report['machine']['cpu_count']} CPUs, "
        f"Python {report['machine']['python']}, numpy {report['machine']['numpy']}, "
        "load average {:.1f} / {:.1f} before / after (a shared machine); ".format(
            *report["machine"]["load_average_1min"]
        )
        + f"best of {report['repeat']} runs. Command: `{report['command']}`.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tiny size that runs in seconds")
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--raters", type=int, default=20)
    parser.add_argument("--categories", type=int, default=10)
    parser.add_argument("--loop-items", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=20250505)
    parser.add_argument("--no-duckdb", action="store_true", help="skip the SQL macro timing")
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    parser.add_argument("--worker", choices=sorted(SIDES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    if args.quick:
        args.items, args.loop_items, args.repeat = 2_000, 500, 1

    load_before = os.getloadavg()[0]
    sides = {name: run_side(name, args) for name in ("ours", "statsmodels", "items")}
    if not args.no_duckdb:
        sides["duckdb"] = run_side("duckdb", args)
    if not math.isclose(sides["ours"]["kappa"], sides["statsmodels"]["kappa"], abs_tol=1e-9):
        raise RuntimeError("ours and statsmodels disagree on kappa")
    ratios = {
        "kappa_ours_over_statsmodels": sides["ours"]["seconds_aggregate_and_kappa"]
        / sides["statsmodels"]["seconds_aggregate_and_kappa"],
        "kappa_only_ours_over_statsmodels": sides["ours"]["seconds_kappa"]
        / sides["statsmodels"]["seconds_kappa"],
        "loop_over_ours_item_measures": sides["items"]["seconds_loop"]
        / sides["items"]["seconds_ours"],
    }
    if "duckdb" in sides:
        ratios["loop_over_duckdb_item_measures"] = (
            sides["items"]["seconds_loop"] / sides["duckdb"]["seconds_item_measures"]
        )
    report = {
        "benchmark": "rater",
        "quick": args.quick,
        "size": {"items": args.items, "raters": args.raters, "categories": args.categories},
        "repeat": args.repeat,
        "sides": sides,
        "ratios": ratios,
        "targets": {
            "kappa_ours_over_statsmodels_max": 3,
            "loop_over_ours_item_measures_min": 50,
            "peak_rss_mb_max": 4096,
        },
        "targets_met": {
            "kappa": ratios["kappa_ours_over_statsmodels"] <= 3,
            "item_measures": ratios["loop_over_ours_item_measures"] >= 50,
            "memory": sides["ours"]["peak_rss_mb"] < 4096,
        },
        "machine": {
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            # the machine is shared: the 1-minute load average before and after the run
            "load_average_1min": [load_before, os.getloadavg()[0]],
        },
        "command": " ".join(["python bench/bench_rater.py", *sys.argv[1:]]),
    }
    name = "rater_quick" if args.quick else "rater"
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.results_dir / f"{name}.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
