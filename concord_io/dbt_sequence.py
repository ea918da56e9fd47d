"""``python -m concord_io.dbt_sequence ARGS [--then ARGS ...]``: dbt commands one after
another in one process, as ``dbt ARGS`` would run them, stopping at the first that fails;
the exit status is dbt's (0 success, 1 a node or check failed, 2 dbt itself failed).

Why one process: each ``dbt`` process spends about 3 s importing dbt and its adapters before
it reads the project (``dbt --version``, bench/results/start.md). ``concord build`` writes
dbt docs right after its dbt build, in the same process (concord_io/cli/__init__.py).

``--nodes WAREHOUSE`` (before the commands): the first command, a ``dbt build``, runs only
the nodes :mod:`concord_io.node_state` decides (what they are made from changed since their
last successful build in that warehouse, or their relation is missing), on the manifest
parsed once for the decision; ``--full`` runs them all; ``--explain`` prints each node's
reason. The last line says how many nodes ran, of how many, and why."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

THEN = "--then"
#: The build's context for the models (the dbt plugin reads it on DuckDB, the macro
#: spark__mcq_build_context on Spark).
CONTEXT = "CONCORD_BUILD_CONTEXT"


def split(argv: list[str]) -> list[list[str]]:
    """The dbt commands in ``argv``, separated by ``--then``."""
    commands: list[list[str]] = [[]]
    for arg in argv:
        if arg == THEN:
            commands.append([])
        else:
            commands[-1].append(arg)
    if any(not command for command in commands):
        raise SystemExit(f"usage: python -m concord_io.dbt_sequence ARGS [{THEN} ARGS ...]")
    return commands


def close_duckdb() -> None:
    """dbt-duckdb keeps the database open in a class attribute after a run: close it, so the
    caller (or the next call, with other settings) can open the file."""
    try:
        from dbt.adapters.duckdb.connections import DuckDBConnectionManager
    except ImportError:  # a target without dbt-duckdb
        return
    environment = DuckDBConnectionManager._ENV
    DuckDBConnectionManager._ENV = None
    if environment is not None:
        with contextlib.suppress(Exception):
            environment.close()


def _flag(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv[:-1] else None


def _planned(build: list[str], warehouse: Path, full: bool, explain: bool):
    """The build's command line with ``--select`` on the nodes to run (None: none runs),
    the manifest it runs on, and the plan (:func:`concord_io.node_state.plan`)."""
    import yaml
    from dbt.cli.main import dbtRunner
    from dbt.version import __version__ as dbt_version

    from concord_common.project_dir import project_vars
    from concord_io import node_state, paths

    # the database as this call found it: dbt's parse may open it
    database = node_state.Database.of(paths.build_db_path())
    project = Path(_flag(build, "--project-dir") or paths.project_root())
    profiles = Path(_flag(build, "--profiles-dir") or project) / "profiles.yml"
    flags = [a for f in ("--project-dir", "--profiles-dir", "--vars", "--target", "--target-path",
                         "--log-path")
             if _flag(build, f) for a in (f, str(_flag(build, f)))]  # fmt: skip
    parsed = dbtRunner().invoke(["parse", *flags, "--quiet"])
    if not parsed.success:
        return None, None, None
    manifest = parsed.result
    adapters = sorted(f"{a.name}:{a.version}" for a in _adapters())
    engine = node_state._hash(dbt_version, adapters, profiles.read_bytes() if profiles.is_file()
                              else b"", os.environ.get("DBT_TARGET", ""))  # fmt: skip
    given = yaml.safe_load(_flag(build, "--vars") or "{}") or {}
    landing = paths.landing_dir(project)
    if os.environ.get("CONCORD_LANDED") != "1":
        # the decision reads the landing: it lands first (concord build's land stage did)
        from concord_io.landing import land

        land(project, landing, given)
        os.environ["CONCORD_LANDED"] = "1"  # the build's plugin does not land it again
    found, context = node_state.fingerprints(
        manifest, landing, project_vars(project, given), engine
    )
    os.environ[CONTEXT] = context  # the dbt plugin hands it to the models
    # a build given a selection (--select, --exclude) decides among the nodes it selects
    chosen, rest = _selection(build)
    kinds = [
        a for i, a in enumerate(build) if a in RESOURCE_TYPES or build[i - 1] in RESOURCE_TYPES
    ]
    if chosen or kinds:
        listed = dbtRunner(manifest=manifest).invoke(
            ["ls", *flags, *chosen, *kinds, "--output", "json", "--output-keys", "unique_id",
             "--quiet"]
        )  # fmt: skip
        selected = {json.loads(line)["unique_id"] for line in listed.result or []}
        found = {uid: f for uid, f in found.items() if uid in selected}
    plan = node_state.plan(manifest, found, warehouse, database, full)
    if explain:
        print("\n".join(plan.lines()), flush=True)
    if not plan.to_run:
        return None, manifest, plan
    narrowed = node_state.selectors(manifest, plan.to_run)
    return [*rest, *(["--select", *narrowed] if narrowed else [])], manifest, plan


#: The options of a dbt build that choose its resource types (kept, and asked of ``ls``).
RESOURCE_TYPES = {"--resource-type", "--exclude-resource-type"}
#: The options of a dbt build that select its nodes, each followed by its values.
SELECTING = ("--select", "-s", "--exclude", "--selector")


def _selection(argv: list[str]) -> tuple[list[str], list[str]]:
    """``argv``'s selecting options with their values, and the rest of it."""
    chosen: list[str] = []
    rest: list[str] = []
    target = rest
    for arg in argv:
        if arg.startswith("-"):
            target = chosen if arg in SELECTING else rest
        target.append(arg)
    return chosen, rest


def _adapters():
    from importlib import metadata

    for name in ("dbt-duckdb", "dbt-spark", "duckdb"):
        try:
            yield metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue


def run(commands: list[list[str]], warehouse: Path | None = None, full: bool = False,
        explain: bool = False) -> int:  # fmt: skip
    spark = [argv for argv in commands if _flag(argv, "--target") == "spark"]
    if spark:
        # the Python models run on dbt's SparkSession (dbt-spark alone cannot run them), and
        # the incremental models' versions carry the build's context, as the dbt plugin
        # hands it to them on DuckDB
        from concord_io.spark import python_models_in_session

        with python_models_in_session(), _build_context(spark[0]):
            return _run(commands, warehouse, full, explain)
    return _run(commands, warehouse, full, explain)


@contextlib.contextmanager
def _build_context(argv: list[str]):
    """``CONCORD_BUILD_CONTEXT`` set, for the dbt commands run inside, to the context of a
    build of ``argv`` (its project, landing and vars: concord_io.build_context); as it was
    after. The landing is as the land stage left it."""
    import yaml

    from concord_common.project_dir import project_vars
    from concord_io import paths
    from concord_io.build_context import build_context

    project = Path(_flag(argv, "--project-dir") or paths.project_root())
    variables = project_vars(project, yaml.safe_load(_flag(argv, "--vars") or "{}") or {})
    before = os.environ.get(CONTEXT)
    os.environ[CONTEXT] = build_context(project, paths.landing_dir(project), variables)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(CONTEXT, None)
        else:
            os.environ[CONTEXT] = before


def _run(commands: list[list[str]], warehouse: Path | None, full: bool, explain: bool) -> int:
    from dbt.cli.main import dbtRunner

    from concord_io import node_state, paths

    plan = manifest = None
    for number, argv in enumerate(commands):
        if number == 0 and warehouse is not None:
            planned, manifest, plan = _planned(argv, warehouse, full, explain)
            if plan is None:  # the project does not parse: dbt said why
                return 2
            if planned is None:  # nothing to build: the record says why each node was kept
                close_duckdb()
                node_state.record(warehouse, plan, {})
                continue
            argv = planned
        try:
            ran = dbtRunner(manifest=manifest).invoke(argv)
        finally:
            close_duckdb()  # the next command (or the caller) opens the file again
        if number == 0 and plan is not None and warehouse is not None:
            results = getattr(ran.result, "results", None) or []
            outcomes = {r.node.unique_id: str(r.status) for r in results}
            node_state.record(warehouse, plan, outcomes)
        if not ran.success:
            return 2 if ran.exception is not None else 1
    if plan is not None and warehouse is not None:
        node_state.seal(warehouse, paths.build_db_path())  # the database as the calls left it
        print(plan.summary(), flush=True)
    return 0


def main(argv: list[str]) -> int:
    warehouse = None
    full = explain = False
    while argv and argv[0] in ("--nodes", "--full", "--explain"):
        if argv[0] == "--nodes":
            warehouse, argv = Path(argv[1]), argv[2:]
            continue
        full, explain = full or argv[0] == "--full", explain or argv[0] == "--explain"
        argv = argv[1:]
    return run(split(argv), warehouse, full, explain)


if __name__ == "__main__":
    status = main(sys.argv[1:])
    if "pyspark" in sys.modules:
        # Spark's and DuckDB's bindings in one process: at exit nanobind reports DuckDB's types
        # as leaked, hundreds of lines that bury dbt's own last ones (what `concord build`
        # prints of a stage that failed). Every dbt command has ended, the SparkSession is
        # stopped and the output is flushed: the process ends without the finalisation.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)
