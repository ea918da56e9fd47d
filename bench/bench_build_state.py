"""Benchmark: `concord build` after each kind of change, beside `dbt --version` and a full
build of the same warehouse, in one run (issue "Builds that do only what changed").

In a fresh copy of the project (the shipped demo data), each timed as a user runs it:
- `dbt --version` (best of three): importing dbt and the adapters, the floor of any dbt call;
- a first `concord build` (nothing to skip) and `concord build --full` on the built warehouse;
- `concord build` with nothing new (best of three);
- `concord build` after one new run (a copy of one wide file under a new model name: 60
  items x 3 languages), with the nodes it ran against the graph's;
- `concord build` after a changed mart's SQL (a comment appended), with the nodes it ran.

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
import subprocess
import sys
import tempfile
import time
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
        before = Path(scratch) / "warehouse_before"
        shutil.copytree(warehouse, before, symlinks=True)
        added_rows = add_long_file(project)
        ours, output = timed([str(BIN / "concord"), "build"], project, env)
        nodes = ran_nodes(warehouse)
        shutil.rmtree(warehouse)
        before.rename(warehouse)
        land, _ = timed([sys.executable, "-m", "concord_io.cli", "land"], project, env)
        dbt = [str(BIN / "dbt"), "build", "--profiles-dir", ".", "--project-dir", "."]
        hand, _ = timed([*dbt, "--select", *nodes], project, {**env, "CONCORD_LANDED": "1"})
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


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument(
        "--long", type=int, metavar="ROWS", help="one long file added to ROWS long rows instead"
    )
    args = parser.parse_args()
    if args.long:
        args.out.mkdir(parents=True, exist_ok=True)
        bench_long(args.long, args.out)
        return
    with tempfile.TemporaryDirectory() as scratch:
        project, _, env = fresh_copy(Path(scratch))
        concord = [str(BIN / "concord"), "build"]
        version = dbt_version(project, env)
        first, _ = timed(concord, project, env)
        full, _ = timed([*concord, "--full"], project, env)
        nothing = min(timed(concord, project, env)[0] for _ in range(3))
        answers = project / "seeds" / "mcq" / "answers"
        (answers / "Copy_Merged_Multilingual.csv").write_bytes(
            (answers / "GPT4o_Shuffled_Merged_Multilingual.csv").read_bytes()
        )
        with (project / "seeds" / "mcq" / "mcq_answer_registry.csv").open("a") as registry:
            registry.write("Copy_Merged_Multilingual.csv,GPT-4o copy,GPT4o,base,ABCD\n")
        new_run, new_output = timed(concord, project, env)
        mart = project / "models" / "marts" / "mcq" / "mcq_language_departures.sql"
        mart.write_text(mart.read_text() + "\n-- a note\n")
        changed, changed_output = timed(concord, project, env)
    result = {
        "dbt_version_s": version,
        "first_build_s": first,
        "full_build_s": full,
        "nothing_new_s": nothing,
        "new_run_s": new_run,
        "new_run_nodes": ran(new_output),
        "changed_mart_s": changed,
        "changed_mart_nodes": ran(changed_output),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "build_state.json").write_text(json.dumps(result, indent=1) + "\n")
    rows = [
        ("`dbt --version` (best of 3)", version, "—", "—"),
        ("first `concord build` (fresh copy)", first, f"{first / version:.1f}×", "—"),
        ("`concord build --full`", full, f"{full / version:.1f}×", "100 %"),
        ("nothing new (best of 3)", nothing, f"{nothing / version:.2f}×", f"{nothing / full:.0%}"),
        ("one new wide run", new_run, f"{new_run / version:.1f}×", f"{new_run / full:.0%}"),
        ("a changed mart's SQL", changed, f"{changed / version:.1f}×", f"{changed / full:.0%}"),
    ]
    lines = [
        "`concord build` after each kind of change on the demo (bench/bench_build_state.py), "
        "one run, each as a user runs it.",
        "",
        "| build | seconds | / `dbt --version` | / full build |",
        "|---|---|---|---|",
        *(f"| {name} | {s:.1f} | {r} | {f} |" for name, s, r, f in rows),
        "",
        f"Nodes run: one new run {result['new_run_nodes']}, a changed mart "
        f"{result['changed_mart_nodes']} (ran, of the graph's).",
    ]
    (args.out / "build_state.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
