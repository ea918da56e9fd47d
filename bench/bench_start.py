"""Benchmark: the start cost of the cross-lingual selection, beside dbt's own floor.

Issue "Lean at scale" asks the selection (`dbt build --select +path:models/marts/mcq`) with
nothing new to cost at most 3x `dbt --version`. This measures, in one run, best of three
each, after one build of the shipped data in a copy of the project:
- `dbt --version`: importing dbt and the adapters, before any project is read;
- the selection again with nothing new (the parse kept, as on a user's machine), with how
  many nodes of each kind it ran;
- dbt's floor for that graph: a throw-away dbt-duckdb project with the same number of table
  models, data tests and unit tests, each trivial (`select 1`, `not_null`, one row), built
  the same way. It reads no file and computes nothing: what dbt itself costs per node, which
  no design of the models can go under while it keeps that many nodes.

Results: bench/results/start.json and start.md. Time it on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_mcq import _measure, run_dbt_version  # noqa: E402

from concord_io.project import DBT, copy_project  # noqa: E402

SELECTION = "+path:models/marts/mcq"


def _timed_builds(project: Path, database: Path, select: str | None) -> dict:
    """`dbt parse` once, then `dbt build` three times (the first builds, the other two find
    nothing new): the best of the last two, and the last build's nodes by kind."""
    dbt_args = ["--profiles-dir", ".", "--project-dir", "."]
    selector = ["--select", select] if select else []
    code = f"""
import os, subprocess, time
from pathlib import Path
env = dict(os.environ, CONCORD_DB_PATH={str(database)!r})
def dbt(*args):
    p = subprocess.run([{str(DBT)!r}, *args, *{dbt_args!r}], cwd={str(project)!r}, env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(p.stdout[-4000:])
dbt('parse')
times = []
for _ in range(3):
    start = time.perf_counter()
    dbt('build', *{selector!r})
    times.append(time.perf_counter() - start)
run = json.loads((Path({str(project)!r}) / 'target' / 'run_results.json').read_text())
kinds = {{}}
for node in run['results']:
    kind = node['unique_id'].split('.')[0]
    kinds[kind] = kinds.get(kind, 0) + 1
result = {{'first_seconds': times[0], 'seconds': min(times[1:]), 'nodes': kinds,
          'dbt_elapsed_seconds': run['elapsed_time']}}
"""
    return _measure("import json\n" + code)


def trivial_project(folder: Path, nodes: dict) -> Path:
    """A dbt-duckdb project with ``nodes['model']`` table models (eight of them
    `select 1`, the rest reading one of those eight), ``nodes['test']`` `not_null` tests
    and ``nodes['unit_test']`` unit tests of one row each."""
    n_models, n_tests = nodes.get("model", 0), nodes.get("test", 0)
    n_units = nodes.get("unit_test", 0)
    roots = max(1, min(8, n_models - n_units))
    models = folder / "models"
    models.mkdir(parents=True)
    (folder / "dbt_project.yml").write_text(
        "name: graph_floor\nversion: '1.0.0'\nconfig-version: 2\nprofile: graph_floor\n"
        "flags:\n  send_anonymous_usage_stats: false\n"
        "models:\n  graph_floor:\n    +materialized: table\n"
    )
    (folder / "profiles.yml").write_text(
        "graph_floor:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        "      path: \"{{ env_var('CONCORD_DB_PATH') }}\"\n      threads: 2\n"
    )
    for i in range(n_models):
        body = "select 1 as x" if i < roots else f"select x from {{{{ ref('m_{i % roots}') }}}}"
        (models / f"m_{i}.sql").write_text(body + "\n")
    # the tests spread over the models, named so that several may check one column
    tests: dict[int, list[int]] = {}
    for t in range(n_tests):
        tests.setdefault(t % n_models, []).append(t)
    properties = ["version: 2", "models:"]
    for i in range(n_models):
        properties.append(f"  - name: m_{i}")
        if i in tests:
            properties += ["    columns:", "      - name: x", "        data_tests:"]
            properties += [f"          - not_null: {{name: t_{t}}}" for t in tests[i]]
    if n_units:
        properties.append("unit_tests:")
    for u in range(n_units):
        model = roots + u % max(1, n_models - roots)
        properties += [
            f"  - name: u_{u}",
            f"    model: m_{model}",
            "    given:",
            f"      - input: ref('m_{model % roots}')",
            "        rows: [{x: 1}]",
            "    expect:",
            "      rows: [{x: 1}]",
        ]
    (models / "_models.yml").write_text("\n".join(properties) + "\n")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    version = run_dbt_version()["seconds"]
    with tempfile.TemporaryDirectory() as tmp:
        project = copy_project(Path(tmp) / "project")
        ours = _timed_builds(project, Path(tmp) / "concord.duckdb", SELECTION)
        floor_project = trivial_project(Path(tmp) / "floor", ours["nodes"])
        floor = _timed_builds(floor_project, Path(tmp) / "floor.duckdb", None)
    report = {
        "benchmark": "start",
        "dbt_version_seconds": version,
        "selection": ours,
        "dbt_graph_floor": floor,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "start.json").write_text(json.dumps(report, indent=2) + "\n")
    nodes = ", ".join(f"{n} {kind}s" for kind, n in sorted(ours["nodes"].items()))
    lines = [
        "The cross-lingual selection built again with nothing new (best of two, after a first "
        "build of the shipped data), beside `dbt --version` and dbt's floor for the same "
        f"graph ({nodes}; each node trivial). bench/bench_start.py.",
        "",
        "| what | s | × `dbt --version` |",
        "|---|---:|---:|",
        f"| `dbt --version` | {version:.2f} | 1.0× |",
        f"| dbt's floor: the same nodes, each trivial | {floor['seconds']:.2f} | "
        f"{floor['seconds'] / version:.1f}× |",
        f"| the selection, nothing new | {ours['seconds']:.2f} | "
        f"{ours['seconds'] / version:.1f}× |",
        f"| the selection's first build | {ours['first_seconds']:.2f} | "
        f"{ours['first_seconds'] / version:.1f}× |",
    ]
    (args.out / "start.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
