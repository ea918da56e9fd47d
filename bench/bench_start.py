"""Benchmark: the start cost of the cross-lingual selection, beside dbt's own floor.

Issue "Lean at scale" asks the selection (`dbt build --select +path:models/marts/mcq`) with
nothing new to cost at most 3x `dbt --version`. This measures, in one run, best of three
each, after one build of the shipped data in a copy of the project:
- `dbt --version`: importing dbt and the adapters, before any project is read;
- the selection again with nothing new (the parse kept, as on a user's machine), with how
  many nodes of each kind it ran;
- the same as `concord build` runs it: without the unit tests, which check the models' code
  on fixed rows, not the data (`make test` runs them; dbt advises leaving them out of
  production runs);
- dbt's floor for that graph: a throw-away dbt-duckdb project with the same number of table
  models, data tests and unit tests, each trivial (`select 1`, `not_null`, one row), built
  the same way. It reads no file and computes nothing: what dbt itself costs per node, which
  no design of the models can go under while it keeps that many nodes;
- dbt's cost per node: the trivial project with NODE_CURVE models and nothing else, a line
  fitted through them (seconds = fixed + per node x nodes), and how many trivial nodes fit
  within 3x `dbt --version`: an upper bound on the nodes of any selection that meets the goal;
- this project's own fixed cost: one model of the selection (ONE_MODEL, a small staging
  table) built alone with nothing new, without its tests: dbt reading this project's
  manifest and writing its artifacts, the plugin's landing check (every input hashed,
  nothing landed) and the run's hooks, around one node;
- the least graph any design of the selection must keep: one node per published table (the
  marts the selection builds, each a contract) and per Python model (each estimator is a
  node of its own in dbt), none of them doing anything: the fixed cost above plus dbt's cost
  per node for the others. Where that alone passes 3x `dbt --version`, no merging of the
  models meets the goal.

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
NO_UNIT_TESTS = ["--exclude-resource-type", "unit_test"]
NODE_CURVE = (1, 30, 60, 90)
#: a model of the selection built alone: the project's fixed cost around one node
ONE_MODEL = "stg_mcq__task_languages"


def _timed_builds(
    project: Path, database: Path, select: str | None, flags: tuple[str, ...] = ()
) -> dict:
    """`dbt parse` once, then `dbt build` three times (the first builds, the other two find
    nothing new): the best of the last two, and the last build's nodes by kind. ``flags``:
    more arguments of `dbt build`."""
    dbt_args = ["--profiles-dir", ".", "--project-dir", "."]
    selector = [*(["--select", select] if select else []), *flags]
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
target = Path({str(project)!r}) / 'target'
run = json.loads((target / 'run_results.json').read_text())
manifest = json.loads((target / 'manifest.json').read_text())['nodes']
languages = {{uid: node.get('language') for uid, node in manifest.items()}}
kinds, node_seconds, published, python = {{}}, {{}}, 0, 0
for node in run['results']:
    kind = node['unique_id'].split('.')[0]
    kinds[kind] = kinds.get(kind, 0) + 1
    if kind == 'model':
        published += manifest[node['unique_id']]['original_file_path'].startswith('models/marts/')
        python += languages[node['unique_id']] == 'python'
    # where the nodes' own time goes: Python models, SQL models, data tests, the rest
    which = (kind + ' ' + languages[node['unique_id']] if kind == 'model' else kind)
    node_seconds[which] = node_seconds.get(which, 0) + node['execution_time']
result = {{'first_seconds': times[0], 'seconds': min(times[1:]), 'nodes': kinds,
          'node_seconds': node_seconds, 'published_models': published,
          'python_models': python, 'dbt_elapsed_seconds': run['elapsed_time']}}
"""
    return _measure("import json\n" + code)


def _trivial_group(models: Path, prefix: str, nodes: dict) -> None:
    """``nodes['model']`` table models named ``<prefix>_<i>`` in ``models`` (eight of them
    `select 1`, the rest reading one of those eight), ``nodes['test']`` `not_null` tests
    and ``nodes['unit_test']`` unit tests of one row each, declared in ``models``."""
    n_models, n_tests = nodes.get("model", 0), nodes.get("test", 0)
    n_units = nodes.get("unit_test", 0)
    roots = max(1, min(8, n_models - n_units))
    models.mkdir(parents=True)
    for i in range(n_models):
        body = (
            "select 1 as x" if i < roots else f"select x from {{{{ ref('{prefix}_{i % roots}') }}}}"
        )
        (models / f"{prefix}_{i}.sql").write_text(body + "\n")
    # the tests spread over the models, named so that several may check one column
    tests: dict[int, list[int]] = {}
    for t in range(n_tests):
        tests.setdefault(t % n_models, []).append(t)
    properties = ["version: 2", "models:"]
    for i in range(n_models):
        properties.append(f"  - name: {prefix}_{i}")
        if i in tests:
            properties += ["    columns:", "      - name: x", "        data_tests:"]
            properties += [f"          - not_null: {{name: {prefix}_t_{t}}}" for t in tests[i]]
    if n_units:
        properties.append("unit_tests:")
    for u in range(n_units):
        model = roots + u % max(1, n_models - roots)
        properties += [
            f"  - name: {prefix}_u_{u}",
            f"    model: {prefix}_{model}",
            "    given:",
            f"      - input: ref('{prefix}_{model % roots}')",
            "        rows: [{x: 1}]",
            "    expect:",
            "      rows: [{x: 1}]",
        ]
    (models / "_models.yml").write_text("\n".join(properties) + "\n")


def trivial_project(folder: Path, nodes: dict, unselected: dict | None = None) -> Path:
    """A dbt-duckdb project with the trivial nodes ``nodes`` under ``models/selected/`` (the
    selection `path:models/selected`) and, beside them, ``unselected`` under
    ``models/rest/``: nodes that dbt parses, holds in its manifest and writes out on every
    call, but does not run (the rest of a project around a selection)."""
    (folder / "models").mkdir(parents=True)
    (folder / "dbt_project.yml").write_text(
        "name: graph_floor\nversion: '1.0.0'\nconfig-version: 2\nprofile: graph_floor\n"
        "flags:\n  send_anonymous_usage_stats: false\n"
        "models:\n  graph_floor:\n    +materialized: table\n"
    )
    (folder / "profiles.yml").write_text(
        "graph_floor:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        "      path: \"{{ env_var('CONCORD_DB_PATH') }}\"\n      threads: 2\n"
    )
    _trivial_group(folder / "models" / "selected", "m", nodes)
    if unselected:
        _trivial_group(folder / "models" / "rest", "r", unselected)
    return folder


def project_nodes(project: Path) -> dict[str, int]:
    """The models, data tests and unit tests of the whole project (its last manifest)."""
    manifest = json.loads((project / "target" / "manifest.json").read_text())
    kinds: dict[str, int] = {}
    for node in manifest["nodes"].values():
        if node["resource_type"] in ("model", "test"):
            kinds[node["resource_type"]] = kinds.get(node["resource_type"], 0) + 1
    kinds["unit_test"] = len(manifest.get("unit_tests", {}))
    return kinds


def fitted_line(points: dict[int, float]) -> tuple[float, float]:
    """Least squares through (nodes, seconds): the fixed seconds and the seconds per node."""
    n = len(points)
    mean_x, mean_y = sum(points) / n, sum(points.values()) / n
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points.items()) / sum(
        (x - mean_x) ** 2 for x in points
    )
    return mean_y - slope * mean_x, slope


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    version = run_dbt_version()["seconds"]
    with tempfile.TemporaryDirectory() as tmp:
        project = copy_project(Path(tmp) / "project")
        ours = _timed_builds(project, Path(tmp) / "concord.duckdb", SELECTION)
        production = _timed_builds(
            project, Path(tmp) / "concord.duckdb", SELECTION, tuple(NO_UNIT_TESTS)
        )
        one_model = _timed_builds(
            project, Path(tmp) / "concord.duckdb", ONE_MODEL, (*NO_UNIT_TESTS, "test")
        )
        floor_project = trivial_project(Path(tmp) / "floor", ours["nodes"])
        floor = _timed_builds(floor_project, Path(tmp) / "floor.duckdb", None)
        # the same, inside a project of the whole project's size: dbt reads and writes the
        # whole manifest on every call, whatever the selection
        whole = project_nodes(project)
        unselected = {kind: n - ours["nodes"].get(kind, 0) for kind, n in whole.items()}
        floor_in_whole = _timed_builds(
            trivial_project(Path(tmp) / "floor_whole", ours["nodes"], unselected),
            Path(tmp) / "floor_whole.duckdb",
            "path:models/selected",
        )
        curve = {
            n: _timed_builds(
                trivial_project(Path(tmp) / f"curve_{n}", {"model": n}),
                Path(tmp) / f"curve_{n}.duckdb",
                None,
            )["seconds"]
            for n in NODE_CURVE
        }
    fixed, per_node = fitted_line(curve)
    nodes_at_goal = max(0, int((3 * version - fixed) / per_node))
    least_nodes = ours["published_models"] + ours["python_models"]
    least_seconds = one_model["seconds"] + (least_nodes - 1) * per_node
    report = {
        "benchmark": "start",
        "dbt_version_seconds": version,
        "selection": ours,
        "selection_without_unit_tests": production,
        "one_model": one_model,
        "least_graph_nodes": least_nodes,
        "least_graph_seconds": least_seconds,
        "dbt_graph_floor": floor,
        "project_nodes": whole,
        "dbt_graph_floor_in_the_whole_project": floor_in_whole,
        "dbt_node_curve_seconds": {str(n): t for n, t in curve.items()},
        "dbt_fixed_seconds": fixed,
        "dbt_seconds_per_node": per_node,
        "trivial_nodes_within_3x_dbt_version": nodes_at_goal,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "start.json").write_text(json.dumps(report, indent=2) + "\n")

    def counted(kinds: dict) -> str:
        return ", ".join(f"{n} {kind}s" for kind, n in sorted(kinds.items()))

    nodes = counted(ours["nodes"])
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
        f"| dbt's floor: the same nodes, each trivial, selected in a project of the whole "
        f"project's size ({counted(whole)}) | {floor_in_whole['seconds']:.2f} | "
        f"{floor_in_whole['seconds'] / version:.1f}× |",
        f"| the selection, nothing new | {ours['seconds']:.2f} | "
        f"{ours['seconds'] / version:.1f}× |",
        f"| the selection's first build | {ours['first_seconds']:.2f} | "
        f"{ours['first_seconds'] / version:.1f}× |",
        f"| the selection, nothing new, as `concord build` runs it (no unit tests: "
        f"{counted(production['nodes'])}) | {production['seconds']:.2f} | "
        f"{production['seconds'] / version:.1f}× |",
        f"| this project's fixed cost: one model of the selection (`{ONE_MODEL}`) built "
        f"alone, nothing new, without its tests | {one_model['seconds']:.2f} | "
        f"{one_model['seconds'] / version:.1f}× |",
        "",
        "Where the nodes' own time goes in the selection with nothing new, as `concord build` "
        "runs it (each node's execution time, added; two threads run them): "
        + ", ".join(f"{kind} {t:.2f} s" for kind, t in sorted(production["node_seconds"].items()))
        + ".",
        "",
        "dbt's cost per node: the trivial project with only table models, best of two "
        "builds with nothing new each.",
        "",
        "| table models | s | × `dbt --version` |",
        "|---:|---:|---:|",
        *(f"| {n} | {t:.2f} | {t / version:.1f}× |" for n, t in curve.items()),
        "",
        f"A line through them: {fixed:.2f} s + {per_node:.3f} s per node, so at most "
        f"{nodes_at_goal} nodes that do nothing fit within 3× `dbt --version` "
        f"({3 * version:.2f} s).",
        "",
        f"The least graph any design of the selection keeps: {ours['published_models']} "
        f"published tables (the marts it builds, each a contract) and "
        f"{ours['python_models']} Python models, {least_nodes} nodes; with each doing "
        f"nothing, this project's fixed cost and dbt's cost per node for the other "
        f"{least_nodes - 1}: {least_seconds:.2f} s, {least_seconds / version:.1f}× "
        f"`dbt --version` (the goal: 3×).",
    ]
    (args.out / "start.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
