"""Benchmark: rater agreement for 1 000 000 items x 20 raters x 10 categories.

On the same generated ratings (each rater copies the item's "true" category with
probability 0.6, otherwise picks uniformly; ``--missing`` of the ratings dropped), each side
in its own fresh interpreter so that peak memory (max RSS) is its own:

* ours, estimates: every coefficient of ``concord_stats.rater_coefficients`` (percent
  agreement, Fleiss, Brennan-Prediger, Gwet AC1/AC2, Conger, Light, Krippendorff at four
  levels; unweighted and ``--weights``) in one ``point_estimates`` call;
* ours, estimates and standard errors: ``dataset_coefficients`` with ``n_resamples=0``
  (what one irrCAC call gives, for every coefficient and rater pair);
* ours, full: the same with ``--resamples`` bootstrap resamples of the items;
* statsmodels: ``aggregate_raters`` + ``fleiss_kappa``, one coefficient (target: ours per
  coefficient faster than this single call);
* irrCAC (``pip install --no-deps --target /tmp/irrcac_pkg irrcac==0.4.4``; it pins an old
  scipy and cannot share the project's environment): its own calls per coefficient
  (fleiss, gwet, bp, conger, krippendorff), timed on ``--irrcac-items`` items and
  extrapolated linearly (every per-item step is linear in the items); target: ours per
  coefficient, estimates and standard errors, >= 50x faster than one irrCAC call;
* the per-item measures: the SQL macros of macros/rater_measures.sql in DuckDB over the long
  counts table (items x categories rows), as int_rater_items_measured runs them.

Times are the best of ``--repeat`` runs (the full bootstrap run: once).
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

from concord_io.project import PROJECT_ROOT as ROOT

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


# --------------------------------------------------------------------------------------------
# data and the sides (run inside a worker process)
# --------------------------------------------------------------------------------------------
def generate_codes(
    n_items: int, n_raters: int, n_categories: int, seed: int, missing: float = 0.0
) -> np.ndarray:
    """items x raters category codes (int8, -1 missing), generated in chunks."""
    rng = np.random.default_rng(seed)
    codes = np.empty((n_items, n_raters), dtype=np.int8)
    chunk = 100_000
    for start in range(0, n_items, chunk):
        rows = min(chunk, n_items - start)
        truth = rng.integers(0, n_categories, size=(rows, 1))
        noise = rng.integers(0, n_categories, size=(rows, n_raters))
        copies = rng.random((rows, n_raters)) < 0.6
        block = np.where(copies, truth, noise)
        block[rng.random((rows, n_raters)) < missing] = -1
        codes[start : start + rows] = block
    return codes


def best_of(repeat: int, fn):
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), value


def side_ours(codes, k, repeat, weights, resamples, **_) -> dict:
    from concord_stats.rater_coefficients import dataset_coefficients, point_estimates

    values = np.arange(1, k + 1)
    seconds, estimates = best_of(
        repeat, lambda: point_estimates(codes, k, weights=weights, values=values)
    )
    seconds_se, _ = best_of(repeat, lambda: dataset_coefficients(
        codes, k, weights=weights, values=values, n_resamples=0, confidence=0.95, seed=1,
    ))  # fmt: skip
    start = time.perf_counter()
    rows, pairs = dataset_coefficients(
        codes, k, weights=weights, values=values, n_resamples=resamples, confidence=0.95,
        seed=1,
    )  # fmt: skip
    seconds_full = time.perf_counter() - start
    return {
        "seconds_estimates": seconds,
        "n_coefficients": len(estimates),
        "seconds_standard_errors": seconds_se,
        "seconds_full": seconds_full,
        "n_rows": len(rows),
        "n_pair_rows": len(pairs),
        "resamples": resamples,
        "fleiss_kappa": estimates[("fleiss_kappa", "unweighted")],
        "estimates": {f"{name}/{label}": value for (name, label), value in estimates.items()},
    }


def side_statsmodels(codes, k, repeat, **_) -> dict:
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    complete = codes[(codes >= 0).all(axis=1)]

    def call():
        table, _ = aggregate_raters(complete, n_cat=k)
        return fleiss_kappa(table)

    seconds, kappa = best_of(repeat, call)
    return {"seconds_fleiss_kappa": seconds, "fleiss_kappa": float(kappa), "items": len(complete)}


def side_irrcac(codes, k, repeat, weights, irrcac_items, irrcac_path, **_) -> dict:
    sys.path.insert(0, irrcac_path)
    import pandas as pd
    from irrCAC.raw import CAC

    subset = codes[:irrcac_items]
    frame = pd.DataFrame(np.where(subset >= 0, subset + 1.0, np.nan))
    categories = [float(c) for c in range(1, k + 1)]
    out = {"items_timed": len(subset), "seconds": {}}
    for weighting in dict.fromkeys(["identity", weights]):
        for method in ("fleiss", "gwet", "bp", "conger", "krippendorff"):

            def call(method=method, weighting=weighting):
                cac = CAC(frame, weights=weighting, categories=categories)
                return getattr(cac, method)()["est"]["coefficient_value"]

            seconds, value = best_of(1, call)
            scale = len(codes) / len(subset)
            out["seconds"][f"{method}/{weighting}"] = seconds * scale
    return out


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

    counts = category_counts(codes.astype(np.int64), k)
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
    "irrcac": side_irrcac,
    "duckdb": side_duckdb,
}


def worker(args) -> None:
    import resource

    codes = generate_codes(args.items, args.raters, args.categories, args.seed, args.missing)
    result = SIDES[args.worker](
        codes,
        args.categories,
        repeat=args.repeat,
        weights=args.weights,
        resamples=args.resamples,
        irrcac_items=min(args.irrcac_items, args.items),
        irrcac_path=str(args.irrcac_path),
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
        "--repeat", str(args.repeat), "--weights", args.weights,
        "--resamples", str(args.resamples), "--missing", str(args.missing),
        "--irrcac-items", str(args.irrcac_items), "--irrcac-path", str(args.irrcac_path),
    ]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{name} failed:\n{out.stderr[-4000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def markdown(report: dict) -> str:
    s = report["sides"]
    size = report["size"]
    ratio = report["ratios"]
    ours = s["ours"]
    n_coef = ours["n_coefficients"]
    per_coefficient = ours["seconds_estimates"] / n_coef
    lines = [
        f"# Rater agreement benchmark ({size['items']:,} items x {size['raters']} raters x "
        f"{size['categories']} categories, {size['missing']:.0%} missing, weights "
        f"{size['weights']})",
        "",
        "| task | time | ratio | target |",
        "|---|---|---|---|",
        f"| ours: all {ours['n_coefficients']} coefficients, estimates "
        f"| {ours['seconds_estimates']:.3f} s ({per_coefficient:.3f} s each) | | |",
        f"| ours: all coefficients and {ours['n_pair_rows']} pair rows, estimates and "
        f"standard errors | {ours['seconds_standard_errors']:.3f} s "
        f"({ours['seconds_standard_errors'] / n_coef:.3f} s each) | | |",
        f"| ours: all coefficients and {ours['n_pair_rows']} pair rows, standard errors, "
        f"{ours['resamples']} bootstrap resamples | {ours['seconds_full']:.1f} s "
        f"({ours['seconds_full'] / n_coef:.2f} s each) | | |",
        f"| statsmodels: aggregate_raters + fleiss_kappa (one coefficient, complete items) "
        f"| {s['statsmodels']['seconds_fleiss_kappa']:.3f} s "
        f"| statsmodels / ours per coefficient: estimates "
        f"{ratio['statsmodels_over_ours_per_coefficient']:.1f}x; with standard errors and "
        f"the bootstrap {ratio['statsmodels_over_ours_full_per_coefficient']:.2f}x | > 1x |",
    ]
    if "irrcac" in s:
        total = sum(s["irrcac"]["seconds"].values())
        lines.append(
            f"| irrCAC: {len(s['irrcac']['seconds'])} calls "
            f"({', '.join(s['irrcac']['seconds'])}), extrapolated from "
            f"{s['irrcac']['items_timed']:,} items | {total:.1f} s "
            f"| irrCAC call / ours per coefficient: estimates and standard errors (what one "
            f"irrCAC call gives) {ratio['irrcac_over_ours']:.1f}x; ours with the bootstrap "
            f"as well {ratio['irrcac_over_ours_full']:.2f}x | >= 50x |"
        )
    if "duckdb" in s:
        lines.append(
            f"| per-item measures, SQL macros in DuckDB ({s['duckdb']['rows']:,} count rows, "
            f"{s['duckdb']['threads']} threads) | {s['duckdb']['seconds_item_measures']:.3f} s "
            "| | |"
        )
    lines += [
        "",
        "Peak memory (max RSS, each side in its own process, data generation included): "
        + ", ".join(f"{name} {side['peak_rss_mb']:.0f} MB" for name, side in s.items())
        + ".",
        f"Fleiss' kappa: ours {ours['fleiss_kappa']:.12f}, statsmodels "
        f"{s['statsmodels']['fleiss_kappa']:.12f} (equal on complete data).",
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
    parser.add_argument("--missing", type=float, default=0.0)
    parser.add_argument("--weights", default="quadratic")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--irrcac-items", type=int, default=20_000)
    parser.add_argument("--irrcac-path", type=Path, default=Path("/tmp/irrcac_pkg"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20250505)
    parser.add_argument("--no-duckdb", action="store_true", help="skip the SQL macro timing")
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    parser.add_argument("--worker", choices=sorted(SIDES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    if args.quick:
        args.items, args.irrcac_items, args.repeat, args.resamples = 2_000, 500, 1, 50

    load_before = os.getloadavg()[0]
    sides = {name: run_side(name, args) for name in ("ours", "statsmodels")}
    if (args.irrcac_path / "irrCAC").exists():
        sides["irrcac"] = run_side("irrcac", args)
    if not args.no_duckdb:
        sides["duckdb"] = run_side("duckdb", args)
    if args.missing == 0 and not math.isclose(
        sides["ours"]["fleiss_kappa"], sides["statsmodels"]["fleiss_kappa"], abs_tol=1e-9
    ):
        raise RuntimeError("ours and statsmodels disagree on Fleiss' kappa")
    ours = sides["ours"]
    n_coef = ours["n_coefficients"]
    statsmodels_call = sides["statsmodels"]["seconds_fleiss_kappa"]
    ratios = {
        # the target: ours per coefficient (all coefficients in one call) against
        # statsmodels' single Fleiss call; estimates, and with the 1000 resamples too
        "statsmodels_over_ours_per_coefficient": statsmodels_call
        / (ours["seconds_estimates"] / n_coef),
        "statsmodels_over_ours_full_per_coefficient": statsmodels_call
        / (ours["seconds_full"] / n_coef),
    }
    if "irrcac" in sides:
        # irrCAC's call per coefficient gives the estimate and its standard error: against
        # ours doing the same (all coefficients, estimates and standard errors, per
        # coefficient); and against ours with the bootstrap as well
        irrcac_call = sum(sides["irrcac"]["seconds"].values()) / len(sides["irrcac"]["seconds"])
        ratios["irrcac_over_ours"] = irrcac_call / (ours["seconds_standard_errors"] / n_coef)
        ratios["irrcac_over_ours_full"] = irrcac_call / (ours["seconds_full"] / n_coef)
    report = {
        "benchmark": "rater",
        "quick": args.quick,
        "size": {
            "items": args.items,
            "raters": args.raters,
            "categories": args.categories,
            "missing": args.missing,
            "weights": args.weights,
        },
        "repeat": args.repeat,
        "sides": sides,
        "ratios": ratios,
        "targets": {"statsmodels_over_ours_per_coefficient_min": 1, "irrcac_over_ours_min": 50},
        "targets_met": {
            "statsmodels": ratios["statsmodels_over_ours_per_coefficient"] > 1,
            **({"irrcac": ratios["irrcac_over_ours"] >= 50} if "irrcac" in ratios else {}),
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
