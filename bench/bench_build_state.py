"""Benchmark: `concord build` after each kind of change, beside `dbt --version` and a full
build of the same warehouse, in one run (issue "Builds that do only what changed").

In a fresh copy of the project (the shipped demo data), each timed as a user runs it:
- `dbt --version` (best of three): importing dbt and the adapters, the floor of any dbt call;
- a first `concord build` (nothing to skip) and `concord build --full` on the built warehouse;
- `concord build` with nothing new (best of three);
- `concord build` after one new run (a copy of one wide file under a new model name: 60
  items x 3 languages), with the nodes it ran against the graph's, and its floor by hand on
  the warehouse as it was before: `concord land`, then `dbt build --select` of exactly those
  nodes (no quality checkpoint, publish or report);
- `concord build` after a changed mart's SQL (a comment appended), with the nodes it ran.

The whole sequence runs `--repeat` times (3), each in a fresh copy; the result is each
build's median, and each ratio's median taken within its own sequence, with their ranges.
Goals: nothing new <= 1.5x `dbt --version`; one new run <= 40 % of a full build; a first
build <= 15x `dbt --version`. With `--long ROWS`: one long file of a tenth of ROWS added to a
warehouse of ROWS long rows, `concord build` <= 1.5x its floor by hand (`concord land`, then
`dbt build --select` of the nodes it ran, on the same warehouse). Results:
bench/results/build_state.json and .md (build_state_long.* with --long). Time it on an idle
machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from concord_io.project import copy_project  # noqa: E402

BIN = Path(sys.executable).parent
RAN = re.compile(r"ran (\d+) of (\d+) nodes")


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return seconds, done.stdout


def ran(output: str) -> list[int] | None:
    found = RAN.search(output)
    return [int(found[1]), int(found[2])] if found else None


def fresh_copy(scratch: Path) -> tuple[Path, Path, dict[str, str]]:
    """A copy of the project in ``scratch`` (its quality suites too: the whole build's stages
    read them), its warehouse folder and the environment `concord build` runs with there."""
    project = copy_project(scratch / "project")
    shutil.copytree(HERE.parent / "quality", project / "quality")
    warehouse = project / "warehouse"
    env = {
        **os.environ,
        "CONCORD_DB_PATH": str(warehouse / "concord.duckdb"),
        "CONCORD_LANDING_DIR": str(warehouse / "landing"),
        "NO_COLOR": "1",
    }
    return project, warehouse, env


def dbt_version(project: Path, env: dict[str, str]) -> float:
    """`dbt --version`, best of three: importing dbt and the adapters, any dbt call's floor."""
    return min(timed([str(BIN / "dbt"), "--version"], project, env)[0] for _ in range(3))


def ran_nodes(warehouse: Path) -> list[str]:
    """The nodes the last `concord build` ran (node_state.json), as dbt selects them."""
    record = json.loads((warehouse / "node_state.json").read_text(encoding="utf-8"))
    ran = [uid for uid, node in record["nodes"].items() if not node["why"].startswith("unchanged")]
    # model.concord.mcq_choice_entropy.v2 -> mcq_choice_entropy.v2; test.concord.name -> name
    return sorted(uid.split(".", 2)[2] for uid in ran)


def change_against_floor(
    change: Callable[[], None], project: Path, warehouse: Path, env: dict[str, str]
) -> tuple[float, str, list[str], float, float]:
    """``change`` made, then `concord build` timed; then its floor by hand on the warehouse as
    it was before (copied aside, put back): `concord land`, then `dbt build --select` of
    exactly the nodes `concord build` ran (what the change reaches). The warehouse `concord
    build` left is put back last, so that later builds of a sequence follow it. Returns the
    build's seconds and output, its nodes, and the floor's landing and dbt seconds."""
    before, after = warehouse.with_name("warehouse_before"), warehouse.with_name("warehouse_after")
    shutil.copytree(warehouse, before, symlinks=True)
    change()
    ours, output = timed([str(BIN / "concord"), "build"], project, env)
    nodes = ran_nodes(warehouse)
    warehouse.rename(after)
    before.rename(warehouse)
    land, _ = timed([sys.executable, "-m", "concord_io.cli", "land"], project, env)
    dbt = [str(BIN / "dbt"), "build", "--profiles-dir", ".", "--project-dir", "."]
    hand, _ = timed([*dbt, "--select", *nodes], project, {**env, "CONCORD_LANDED": "1"})
    shutil.rmtree(warehouse)
    after.rename(warehouse)
    return ours, output, nodes, land, hand


def bench_long(n_rows: int, out: Path) -> None:
    """One long file of about a tenth of ``n_rows`` added to a built warehouse of ``n_rows``
    long answer rows: `concord build` against its floor by hand on the same warehouse (the
    warehouse copied before the file came, put back): `concord land`, then `dbt build
    --select` of exactly the nodes `concord build` ran (what the file's data reaches)."""
    from bench_mcq import add_long_file
    from generate_mcq import generate_long

    with tempfile.TemporaryDirectory() as scratch:
        project, warehouse, env = fresh_copy(Path(scratch))
        generate_long(project, n_rows)
        version = dbt_version(project, env)
        first, _ = timed([str(BIN / "concord"), "build"], project, env)
        added_rows = 0

        def add() -> None:
            nonlocal added_rows
            added_rows = add_long_file(project)

        ours, output, nodes, land, hand = change_against_floor(add, project, warehouse, env)
    result = {
        "answer_rows": n_rows,
        "added_rows": added_rows,
        "dbt_version_s": version,
        "first_build_s": first,
        "new_file_s": ours,
        "new_file_nodes": ran(output),
        "floor_land_s": land,
        "floor_dbt_select_s": hand,
        "ratio": ours / (land + hand),
    }
    (out / "build_state_long.json").write_text(json.dumps(result, indent=1) + "\n")
    lines = [
        f"One new long file of {added_rows:,} rows on a warehouse of {n_rows:,} long rows "
        "(bench/bench_build_state.py --long), idle, one run each.",
        "",
        "| build | seconds |",
        "|---|---|",
        f"| `dbt --version` (best of 3) | {version:.1f} |",
        f"| first `concord build` | {first:.1f} |",
        f"| `concord build` after the new file | {ours:.1f} |",
        f"| floor by hand: `concord land` | {land:.1f} |",
        f"| floor by hand: `dbt build --select` the {len(nodes)} nodes it ran | {hand:.1f} |",
        "",
        f"`concord build` / floor: {result['ratio']:.2f}× (goal <= 1.5×); nodes run "
        f"{result['new_file_nodes']} (ran, of the graph's).",
    ]
    (out / "build_state_long.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def one_sequence() -> tuple[dict[str, float], dict[str, list[int] | None]]:
    """Each build of the sequence once, in a fresh copy: its seconds, and the nodes run."""
    with tempfile.TemporaryDirectory() as scratch:
        project, warehouse, env = fresh_copy(Path(scratch))
        concord = [str(BIN / "concord"), "build"]
        seconds = {"dbt_version_s": dbt_version(project, env)}
        seconds["first_build_s"] = timed(concord, project, env)[0]
        seconds["full_build_s"] = timed([*concord, "--full"], project, env)[0]
        seconds["nothing_new_s"] = min(timed(concord, project, env)[0] for _ in range(3))

        def add_run() -> None:
            answers = project / "seeds" / "mcq" / "answers"
            (answers / "Copy_Merged_Multilingual.csv").write_bytes(
                (answers / "GPT4o_Shuffled_Merged_Multilingual.csv").read_bytes()
            )
            with (project / "seeds" / "mcq" / "mcq_answer_registry.csv").open("a") as registry:
                registry.write("Copy_Merged_Multilingual.csv,GPT-4o copy,GPT4o,base,ABCD\n")

        seconds["new_run_s"], new_output, _, land, hand = change_against_floor(
            add_run, project, warehouse, env
        )
        seconds["new_run_floor_s"] = land + hand
        mart = project / "models" / "marts" / "mcq" / "mcq_language_departures.sql"
        mart.write_text(mart.read_text() + "\n-- a note\n")
        seconds["changed_mart_s"], changed_output = timed(concord, project, env)
    return seconds, {"new_run_nodes": ran(new_output), "changed_mart_nodes": ran(changed_output)}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument(
        "--long", type=int, metavar="ROWS", help="one long file added to ROWS long rows instead"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, metavar="N",
        help="the whole sequence N times, each in a fresh copy: the medians are the result",
    )  # fmt: skip
    args = parser.parse_args()
    if args.long:
        args.out.mkdir(parents=True, exist_ok=True)
        bench_long(args.long, args.out)
        return
    # consecutive runs of one build move by 2-3 s on a 2-core machine: the median of whole
    # sequences, each ratio taken within its own sequence
    sequences = [one_sequence() for _ in range(max(1, args.repeat))]
    runs = {key: [s[key] for s, _ in sequences] for key in sequences[0][0]}
    ratios = {
        "first_build_x": [s["first_build_s"] / s["dbt_version_s"] for s, _ in sequences],
        "nothing_new_x": [s["nothing_new_s"] / s["dbt_version_s"] for s, _ in sequences],
        "new_run_share": [s["new_run_s"] / s["full_build_s"] for s, _ in sequences],
        "new_run_floor_share": [s["new_run_floor_s"] / s["full_build_s"] for s, _ in sequences],
        "changed_mart_share": [s["changed_mart_s"] / s["full_build_s"] for s, _ in sequences],
    }
    result = {
        **{key: statistics.median(values) for key, values in {**runs, **ratios}.items()},
        **sequences[-1][1],
        "runs": {**runs, **ratios},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "build_state.json").write_text(json.dumps(result, indent=1) + "\n")

    lines = render(result)
    (args.out / "build_state.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def render(result: dict) -> list[str]:
    """The table of ``build_state.json``: each build's median and range, each ratio's."""
    runs = result["runs"]

    def cell(key: str, ratio: str | None = None, fmt: str = "", unit: str = "") -> list[str]:
        values = runs[key]
        shown = [f"{result[key]:.1f}", f"{min(values):.1f}–{max(values):.1f}"]
        if ratio is not None:
            low, high = min(runs[ratio]), max(runs[ratio])
            shown.append(f"{result[ratio]:{fmt}}{unit} ({low:{fmt}}–{high:{fmt}}{unit})")
        return shown

    rows = [
        ("`dbt --version` (best of 3)", *cell("dbt_version_s"), "—"),
        ("first `concord build` (fresh copy)", *cell("first_build_s", "first_build_x", ".1f", "×")),
        ("`concord build --full`", *cell("full_build_s"), "100 %"),
        ("nothing new (best of 3)", *cell("nothing_new_s", "nothing_new_x", ".2f", "×")),
        ("one new wide run", *cell("new_run_s", "new_run_share", ".0%")),
        (
            "its floor by hand: `concord land` + `dbt build --select` of its nodes",
            *cell("new_run_floor_s", "new_run_floor_share", ".0%"),
        ),
        ("a changed mart's SQL", *cell("changed_mart_s", "changed_mart_share", ".0%")),
    ]
    return [
        "`concord build` after each kind of change on the demo (bench/bench_build_state.py), "
        f"the median of {len(runs['first_build_s'])} sequences, each in a fresh copy, each "
        "build as a user runs it. The ratio is to `dbt --version` for a first build and "
        "nothing new, to that sequence's `--full` build otherwise (its median, and its range).",
        "",
        "| build | seconds (median) | range | ratio |",
        "|---|---|---|---|",
        *(f"| {' | '.join(row)} |" for row in rows),
        "",
        f"Nodes run: one new run {result['new_run_nodes']}, a changed mart "
        f"{result['changed_mart_nodes']} (ran, of the graph's).",
    ]


if __name__ == "__main__":
    main()
