"""``concord``: the project's command line (build, status, export, land, add, probe, open).

Built on Typer (Click underneath): every flag is parsed and checked by the library, and a bad
flag gives one line that names it. Failures go through :func:`concord_io.errors.run_main`:
one line (and a hint), a traceback only with ``--debug`` or ``CONCORD_DEBUG=1``.

``concord build`` runs the pipeline that ``make build`` runs, stage by stage, each as the
same module command line the stage has on its own (``concord land``,
``dbt build``, ``python -m concord_io.quality``, ``python -m concord_io.serving.publish``, dbt docs
and ``python -m concord_io.report``, ``python -m concord_io.cli.summary``), so the stages stay
one implementation each. Each stage shows one progress line with its time (on a terminal,
the dbt stage shows dbt's latest ``n of N`` line as it runs); its output goes to a plain-text
log (``<warehouse>/logs/concord-build.log``) line by line as it is written, and the end of it
is printed when the stage fails.

``concord probe run|demo|runs|mcq ...`` is ``python -m probe run|demo|runs|mcq ...``; shell
completion: ``concord --install-completion [SHELL]`` (bash, zsh, fish, PowerShell).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import webbrowser
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import shellingham
import typer
from rich.console import Console
from rich.text import Text
from typer import _click as click
from typer import completion as typer_completion
from typer._click.exceptions import NoArgsIsHelpError
from typer.core import TyperGroup

from concord_common import GO, warehouse_lock
from concord_common.sql import sql_identifier, sql_literal
from concord_io import paths
from concord_io.dbt_sequence import THEN
from concord_io.errors import ConcordError, debug_requested, printable, run_main
from concord_io.serving.publish import CURRENT_DB, KEEP, MIN_KEEP, SCHEMA, VERSIONS

PROG = "concord"


def _command_group(name: str, help: str, **options: Any) -> typer.Typer:
    """A group of commands: its help on no arguments, plain text, and errors as
    :func:`main` prints them. Typer's completion options take no shell name: ours (in
    ``_options``) take one, and fall back to the shell they run in."""
    return typer.Typer(
        name=name,
        help=help,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        **options,
    )


app = _command_group(PROG, "Concord: build, inspect and export the warehouse.")

DBT = Path(sys.executable).parent / "dbt"
BUILD_LOG = "concord-build.log"
#: The published summary of failing dbt tests (written by the on-run-end hook).
TEST_FAILURES_TABLE = "dq_test_failures"
_TAIL_LINES = 30
#: A line of dbt's progress: "12:00:01  3 of 120 OK created sql table model marts.x ... [OK
#: in 0.12s]" -> "3 of 120 OK created sql table model marts.x".
DBT_PROGRESS = re.compile(r"^\d\d:\d\d:\d\d\s+(\d+ of \d+ .*?)(?:\s*\.{3,}.*)?$")


def _console(stream=None) -> Console:
    # colour only on a terminal: a log or a pipe gets plain text (rich honours NO_COLOR too)
    stream = stream or sys.stdout
    return Console(file=stream, highlight=False, soft_wrap=True)


def _target_dir() -> Path:
    configured = os.environ.get("DBT_TARGET_PATH", "").strip()
    path = Path(configured or "target")
    return path if path.is_absolute() else paths.project_root() / path


# ---------------------------------------------------------------------------------------------
# build


Step = list[str] | Callable[[], None]


@dataclass
class Stage:
    """One stage of the build: commands run in order (argv lists, or Python callables)."""

    name: str
    steps: list[Step]
    show_output: bool = False  # print the stage's output after it (the summary)
    env: dict[str, str] = field(default_factory=dict)
    #: after the stage: why the build has nothing more to do (it stops there), or None
    done_if: Callable[[], str | None] | None = None
    #: modules its first command (``python -m module ...``) is slow to import: its process
    #: starts with the stage before it and imports them meanwhile (concord_io.cli.warm_start)
    warm: tuple[str, ...] = ()
    #: the options of its first command that do the stage's work ahead of its turn, from
    #: the build's database alone, then wait for the word (publish's ``--when-told``, the
    #: report's ``--figures-from``): its process starts once the dbt stage has ended
    prepares: tuple[str, ...] = ()


def build_stages(
    database: Path,
    keep: int = KEEP,
    *,
    docs_from_build: bool = True,
    lands_first: bool = True,
    nodes: tuple[str, ...] | None = None,
    dbt_target: str = "dev",
) -> list[Stage]:
    """The stages of ``concord build``, in order, with the command lines they run.

    ``lands_first``: the land stage runs in this call, so the dbt build's plugin does not
    land the inputs again (``CONCORD_LANDED``); ``concord build --stage dbt-build`` alone
    lands through the plugin, as plain ``dbt build`` does.

    ``docs_from_build``: the dbt-build and report stages both run in this call, so the
    dbt-build stage writes dbt docs right after its build, in the same process
    (:mod:`concord_io.dbt_sequence`: one start of dbt, about 3 s, instead of two) and from
    the manifest that build just wrote, every model compiled (``--no-compile``: 12.7 s ->
    3.7 s on the demo); the report stage then copies them. The report stage run alone
    writes them itself, compiling.

    ``nodes``: the dbt build runs only the nodes whose inputs changed since their last
    successful build in this warehouse (:mod:`concord_io.node_state`), with these options of
    ``python -m concord_io.dbt_sequence`` (``--full``, ``--explain``); None: every node.

    ``dbt_target``: ``spark`` builds on Spark (its Python models too, :mod:`concord_io.spark`),
    then mirrors Spark's tables into ``database``, which the stages after read as they read
    a DuckDB build."""
    root = paths.project_root()
    warehouse = database.parent
    serving, report, quality = warehouse / "serving", warehouse / "report", warehouse / "quality"
    target = _target_dir()
    python = sys.executable
    dbt_flags = ["--profiles-dir", str(root), "--project-dir", str(root), "--no-use-colors"]
    dbt_flags += ["--target", dbt_target] if dbt_target != "dev" else []

    def copy_docs() -> None:
        (report / "docs").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(target / "static_index.html", report / "docs" / "index.html")

    build = ["build", *dbt_flags, "--exclude-resource-type", "unit_test"]
    # --static: one file that opens offline (usage statistics: off in dbt_project.yml)
    docs = ["docs", "generate", *dbt_flags, "--static", "--quiet"]
    if docs_from_build:
        sequence = [python, "-m", "concord_io.dbt_sequence"]
        if nodes is not None:
            sequence += ["--nodes", str(warehouse), *nodes]
        dbt_build = [*sequence, *build, THEN, *docs, "--no-compile"]
        report_steps: list[Step] = []
    else:
        dbt_build, report_steps = [str(DBT), *build], [[str(DBT), *docs]]

    return [
        # the seed files and the cross-lingual study's inputs checked and landed as Parquet,
        # one line per landed folder, refused before dbt starts; the dbt build that follows
        # does not land them again
        Stage("land", [[python, "-m", "concord_io.cli", "land"]], show_output=True),
        # the unit tests check the models' code on fixed rows, not the data: `make test` runs
        # them (its builds are plain `dbt build`), a data build leaves them out, as dbt
        # advises for production runs
        Stage(
            "dbt-build",
            [dbt_build, *([_mirror(database)] if dbt_target == "spark" else [])],
            env={"CONCORD_LANDED": "1"} if lands_first else {},
            # dbt and its adapter: about 1.3 s, while the inputs land
            warm=("dbt.cli.main", "dbt.adapters.duckdb") if docs_from_build else (),
        ),
        Stage(
            "quality",
            [
                [
                    python,
                    "-m",
                    "concord_io.quality",
                    "--database",
                    str(database),
                    "--out",
                    str(quality),
                ]
            ],
            # Great Expectations: about 3 s of one core, while dbt builds on the other (a
            # Spark build's JVM keeps every core busy: there it waits its turn)
            warm=("great_expectations", "great_expectations.expectations")
            if dbt_target == "dev"
            else (),
        ),
        Stage(
            "publish",
            [
                [
                    python,
                    "-m",
                    "concord_io.serving.publish",
                    "--database",
                    str(database),
                    "--serving-dir",
                    str(serving),
                    "--manifest",
                    str(target / "manifest.json"),
                    "--keep",
                    str(keep),
                ]
            ],
            # the new version written while the checkpoint runs, sealed when it passed
            prepares=("--when-told",),
        ),
        Stage(
            "report",
            [
                *report_steps,
                copy_docs,
                [
                    python,
                    "-m",
                    "concord_io.report",
                    "--serving",
                    str(serving / CURRENT_DB),
                    "--out",
                    str(report),
                ],
            ],
            # the figures drawn from the build's marts while the checkpoint runs (most of the
            # report's time), the page from the version publish sealed
            prepares=("--figures-from", str(database)) if docs_from_build else (),
        ),
        Stage(
            "summary",
            [
                [
                    python,
                    "-m",
                    "concord_io.cli.summary",
                    "--database",
                    str(database),
                    "--serving-dir",
                    str(serving),
                    "--report-dir",
                    str(report),
                ]
            ],
            show_output=True,
        ),
    ]


class Target(StrEnum):
    dev = "dev"
    spark = "spark"


def _mirror(database: Path) -> list[str]:
    """Spark's tables copied into ``database`` (:func:`concord_io.spark.mirror`)."""
    spark = paths.spark_dir()
    return [sys.executable, "-m", "concord_io.spark", "mirror", "--spark-dir", str(spark),
            "--database", str(database)]  # fmt: skip


STAGE_NAMES = ("land", "dbt-build", "quality", "publish", "report", "summary")
#: What publishes the build database as it is (after a plain `dbt build`): the stages after
#: the build's own; `concord status` names it where the build is not what readers see.
PUBLISH_COMMAND = f"{PROG} build " + " ".join(
    f"--stage {name}" for name in STAGE_NAMES[STAGE_NAMES.index("quality") :]
)


def _start(step: list[str], env: dict[str, str], pass_fds: tuple[int, ...],
           ahead: Stage | None = None) -> subprocess.Popen:  # fmt: skip
    """A step's process, started; with ``ahead``, the stage's first step started ahead of
    its turn: it imports the stage's :attr:`~Stage.warm` modules or does the work its
    :attr:`~Stage.prepares` option names, then waits for :data:`GO` on its stdin
    (:func:`_run_step`)."""
    argv = step
    if ahead is not None and ahead.prepares:
        argv = [*step, *ahead.prepares]
    elif ahead is not None:
        python, flag, module, *args = step
        if flag != "-m":
            raise ValueError(f"only `python -m module ...` starts ahead, not {step[:3]}")
        imports = [a for name in ahead.warm for a in ("--import", name)]
        argv = [python, "-m", "concord_io.cli.warm_start", *imports, "--", module, *args]
    return subprocess.Popen(
        argv,
        cwd=paths.project_root(),
        env=env,
        stdin=subprocess.PIPE if ahead is not None else None,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        pass_fds=pass_fds,
    )


def _start_ahead(stages: list[Stage], env: dict[str, str], pass_fds: tuple[int, ...],
                 warmed: dict[str, subprocess.Popen]) -> None:  # fmt: skip
    """The processes started while ``stages[0]`` runs, kept in ``warmed`` by their stage's
    name: the stages after it that prepare their work (once no dbt stage is left to run),
    in a row, and then the next one where it is slow to import."""
    built = all(stage.name != "dbt-build" for stage in stages)
    for stage in stages[1:]:
        if stage.prepares and not built:
            break
        if stage.name not in warmed and (stage.warm or stage.prepares):
            first = next(step for step in stage.steps if isinstance(step, list))
            warmed[stage.name] = _start(first, {**env, **stage.env}, pass_fds, stage)
        if not stage.prepares:
            break


@contextlib.contextmanager
def _dismissing(warmed: dict[str, subprocess.Popen]) -> Iterator[None]:
    """On the way out, each process started ahead whose turn never came (the build stopped
    or had nothing more to do) ended at once: it has only imported (a build with nothing
    new does not wait for dbt's import to end), or it removes what it prepared."""
    try:
        yield
    finally:
        for process in warmed.values():
            process.terminate()
            process.communicate()


def _run_step(
    step,
    env: dict[str, str],
    log,
    progress: Callable[[str], None] | None = None,
    pass_fds: tuple[int, ...] = (),
    started: subprocess.Popen | None = None,
) -> tuple[int, str]:
    """Run one step (or let ``started``, its process started ahead, go on); its output is
    appended to ``log`` line by line as it comes (so that ``tail -f`` follows a build) and
    returned; ``progress`` gets each dbt ``n of N`` line."""
    if callable(step):
        try:
            step()
        except OSError as error:
            text = f"{error}\n"
            log.write(text)
            return 1, text
        return 0, ""
    log.write(f"$ {' '.join(step)}\n")
    log.flush()
    lines = []
    process = started or _start(step, env, pass_fds)
    if started is not None:
        assert started.stdin is not None
        try:
            started.stdin.write(f"{GO}\n")
            started.stdin.close()
        except BrokenPipeError:  # it failed while importing: its output says why
            pass
    with process:
        assert process.stdout is not None
        for line in process.stdout:
            log.write(line)
            log.flush()
            lines.append(line)
            if progress is not None and (match := DBT_PROGRESS.match(line.rstrip())):
                progress(match[1])
    return process.returncode, "".join(lines)


def run_build(
    database: Path,
    stages: list[Stage],
    log_path: Path,
    console: Console,
    landing: Path | None = None,
) -> list[tuple[str, float]]:
    """Run ``stages`` in order; stop at the first that fails (nothing after it runs).

    ``landing``: the warehouse lock of that landing folder is held from the first stage to
    the end of the last, and handed on to every stage's process (which holds it through
    this one's), so no other command lands or builds between the landing and the build
    that reads it (a ``dbt run --vars ...`` in between was built and published as this
    build's)."""
    if landing is None:
        return _run_stages(database, stages, log_path, console, {}, ())
    with warehouse_lock.held(landing, "concord build", error=ConcordError):
        fd, handed_on = warehouse_lock.handed_on(landing.resolve() / warehouse_lock.LOCK_FILE)
        return _run_stages(database, stages, log_path, console, handed_on, (fd,))


def _run_stages(
    database: Path,
    stages: list[Stage],
    log_path: Path,
    console: Console,
    lock_env: dict[str, str],
    pass_fds: tuple[int, ...],
) -> list[tuple[str, float]]:
    log_path.parent.mkdir(parents=True, exist_ok=True)
    database.parent.mkdir(parents=True, exist_ok=True)
    # unbuffered: a Python child (dbt) writes each line as it goes, not in blocks at its end
    env = {
        **os.environ,
        "CONCORD_DB_PATH": str(database),
        "NO_COLOR": "1",
        "PYTHONUNBUFFERED": "1",
        **lock_env,
    }
    timings: list[tuple[str, float]] = []
    warmed: dict[str, subprocess.Popen] = {}  # stages started ahead, by name
    with log_path.open("w", encoding="utf-8") as log, _dismissing(warmed):
        log.write(f"concord build {datetime.now(UTC).isoformat()} database {database}\n")
        for number, stage in enumerate(stages, start=1):
            _start_ahead(stages[number - 1 :], env, pass_fds, warmed)
            label = f"[{number}/{len(stages)}] {stage.name}"
            log.write(f"\n=== {label}\n")
            start = time.perf_counter()
            outputs = []
            status = 0
            with console.status(label) if console.is_terminal else _nothing() as spinner:

                def progress(line: str, label: str = label) -> None:
                    # one line, cut at the terminal's edge (after the spinner and a space)
                    text = Text(f"{label}: {printable(line)}")
                    text.truncate(console.width - 2, overflow="ellipsis")
                    spinner.update(text)

                for step in stage.steps:
                    status, output = _run_step(
                        step,
                        {**env, **stage.env},
                        log,
                        progress if console.is_terminal else None,
                        pass_fds,
                        # the stage's first command, when its process started ahead
                        warmed.pop(stage.name, None) if isinstance(step, list) else None,
                    )
                    outputs.append(output)
                    if status != 0:
                        break
            seconds = time.perf_counter() - start
            timings.append((stage.name, seconds))
            if status != 0:
                console.print(f"{label} failed after {seconds:.1f} s", style="bold red")
                tail = "".join(outputs).rstrip().splitlines()[-_TAIL_LINES:]
                for line in tail:
                    console.print(f"  {printable(line)}", markup=False)
                raise ConcordError(
                    f"build stopped at stage '{stage.name}' (exit {status}); "
                    "later stages did not run and nothing more was published",
                    hint=f"full log: {log_path}",
                )
            console.print(f"{label} ok ({seconds:.1f} s)", style="green")
            text = "".join(outputs).rstrip()
            if stage.show_output:
                console.print(text, markup=False)
            elif text:  # the stage's own last word: dbt's PASS/WARN counts, the docs' path
                console.print(f"  {printable(text.splitlines()[-1].strip())}", markup=False)
            done = stage.done_if() if stage.done_if is not None else None
            if done:
                log.write(f"{done}\n")
                console.print(printable(done), markup=False)
                break
    total = sum(s for _, s in timings)
    console.print(f"build finished in {total:.1f} s (log: {log_path})", markup=False)
    return timings


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, *_) -> None:
        pass


@app.command()
def build(
    database: Annotated[
        Path | None,
        typer.Option(
            help="build database (default: $CONCORD_DB_PATH, else warehouse/concord.duckdb)"
        ),
    ] = None,
    keep: Annotated[
        int,
        typer.Option(
            min=MIN_KEEP,
            help=f"published versions to keep (at least {MIN_KEEP}: the current and the "
            "previous one)",
        ),
    ] = KEEP,
    log: Annotated[Path | None, typer.Option(help="plain-text log of every stage")] = None,
    stage: Annotated[
        list[str] | None,
        typer.Option(help=f"run only this stage (repeatable): {', '.join(STAGE_NAMES)}"),
    ] = None,
    full: Annotated[
        bool,
        typer.Option(
            "--full", help="build everything, even when nothing is new since the last build"
        ),
    ] = False,
    explain: Annotated[
        bool,
        typer.Option("--explain", help="say for each dbt node why it runs or is kept"),
    ] = False,
    target: Annotated[
        Target,
        typer.Option(
            help="dev: DuckDB; spark: the spark target of profiles.yml, every node and the "
            "Python models on Spark's own tables (docs/spark.md), its tables mirrored into "
            f"{paths.SPARK_MIRROR} beside the build database for the checks, publish and the "
            "report"
        ),
    ] = Target.dev,
) -> None:
    """Build the warehouse: land, dbt build, quality checkpoint, publish, report (with dbt
    docs), summary; stops at the first stage that fails, and after the landing when nothing
    is new since the last whole build (its inputs, code, vars and seeds as it found them,
    its database and published version as it left them). The dbt build runs only the nodes
    whose code, vars or upstream data changed since their last successful build (or whose
    relation is missing); --full runs them all."""
    on_spark = target == Target.spark
    database = database or paths.build_db_path()
    database = (database.with_name(paths.SPARK_MIRROR) if on_spark else database).absolute()
    log_path = (log or database.parent / "logs" / BUILD_LOG).absolute()
    node_options = ("--full",) * full + ("--explain",) * explain
    stages = build_stages(
        database,
        keep,
        docs_from_build=not stage or {"dbt-build", "report"} <= set(stage),
        lands_first=not stage or "land" in stage,
        # on Spark every node runs, every time: its state is not recorded (docs/spark.md)
        nodes=None if stage or on_spark else node_options,
        dbt_target=target.value,
    )
    for each in stages:
        each.show_output = each.show_output or (explain and each.name == "dbt-build")
    if stage:
        unknown = [s for s in stage if s not in STAGE_NAMES]
        if unknown:
            raise ConcordError(
                f"--stage {unknown[0]!r} is not a stage", hint=f"stages: {', '.join(STAGE_NAMES)}"
            )
        stages = [s for s in stages if s.name in stage]
    from concord_common.project_dir import project_vars
    from concord_io.landing.engine import checked_landing_folder

    project = paths.project_root()
    landing = checked_landing_folder(paths.landing_dir(), project, project_vars(project))
    if not stage and not on_spark:  # the whole build: it records what it was made from
        _skip_when_nothing_new(stages, project, landing, database, full)
    run_build(database, stages, log_path, _console(), landing)


def _skip_when_nothing_new(
    stages: list[Stage], project: Path, landing: Path, database: Path, full: bool
) -> None:
    """The whole build's stages told to stop after the landing when nothing is new since the
    last whole build (unless ``full``), and to record what they were made from at the end
    (:mod:`concord_io.build_state`)."""
    from concord_io import build_state, node_state

    warehouse, serving = database.parent, database.parent / "serving"
    digest: list[str] = []

    def nothing_new() -> str | None:
        digest.append(build_state.inputs_digest(project, landing))
        digest.append(build_state.product_digest(project))
        return None if full else build_state.nothing_new(warehouse, digest[0], database, serving)

    def nothing_published() -> str | None:
        """After the quality checkpoint: no published table ran and the code that published
        the current version is this build's, so that version stays current (publish, the
        report and the summary would make it again)."""
        version = build_state.current_version(serving)
        if (
            full
            or version is None
            or not node_state.published_unchanged(warehouse)
            or not build_state.published_with(warehouse, digest[1])
        ):
            return None
        build_state.record(warehouse, digest[0], database, serving, digest[1])
        return (
            f"no published table changed: version {version} stays current (publish, the "
            "report and the summary were not run)"
        )

    stages[0].done_if = nothing_new
    quality = next((s for s in stages if s.name == "quality"), None)
    if quality is not None:
        quality.done_if = nothing_published
    stages[-1].steps.append(
        lambda: build_state.record(warehouse, digest[0], database, serving, digest[1])
    )


# ---------------------------------------------------------------------------------------------
# status


def _landed_runs() -> dict[str, str]:
    """Each landed probe run and its model, as its runs.parquet records it (the demo's says
    that its weights are random); the probe's own listing (``probe runs``), so the reader's
    empty placeholder before the first run is never listed as a run."""
    from concord_common.probe_landing import list_runs

    return {
        row["run_id"]: row.get("model", "unreadable runs.parquet")
        for row in list_runs(paths.landing_dir())
    }


def _last_build_failures(target: Path) -> tuple[str | None, list[str]]:
    """When dbt's last invocation ran, and its tests that did not pass (run_results.json)."""
    run_results = target / "run_results.json"
    if not run_results.is_file():
        return None, []
    try:
        data = json.loads(run_results.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("results", []), list):
            raise ValueError("not dbt's run results")
    except (OSError, UnicodeDecodeError, ValueError) as error:
        # cut short (a dbt call killed while writing it): said, not a traceback
        return "(unknown)", [
            f"{run_results} is unreadable ({error}); the next dbt build writes it again"
        ]
    failures = [
        f"{r['unique_id']}: {r['status']}"
        + (f" ({r['failures']} rows)" if r.get("failures") else "")
        for r in data.get("results", [])
        if r.get("unique_id", "").startswith("test.") and r.get("status") not in ("pass", "success")
    ]
    return data.get("metadata", {}).get("generated_at"), failures


def _version_facts(database: Path) -> tuple[str, dict[str, tuple[int, int]]]:
    """A published version's quality state (``passed``, ``skipped``) and, per mart, its row
    count and an order-free fingerprint of its rows (the sum of the rows' hashes)."""
    from concord_io.connect import connect_serving
    from concord_io.serving.export import published_marts

    with connect_serving(database) as con:
        columns = {
            c
            for (c,) in con.execute(
                "select column_name from information_schema.columns "
                "where table_schema = 'meta' and table_name = 'publication'"
            ).fetchall()
        }
        quality = (
            con.execute("select quality from meta.publication").fetchall()[0][0]
            if "quality" in columns
            else "not recorded"
        )
        facts = {
            m: con.execute(
                f"select count(*), coalesce(sum(hash({_row_at_precision(con, m)})::hugeint), 0) "
                f'from {SCHEMA}."{m}" t'
            ).fetchall()[0]
            for m in published_marts(con)
        }
    return str(quality), facts


# A float is compared at this many significant digits: a rebuild that sums in another order
# moves the last bits of a double (1e-16), which is no change in what a mart says.
STATUS_SIGNIFICANT_DIGITS = 10


def _row_at_precision(con, mart: str) -> str:
    """The row of ``mart`` (alias t) as a struct, its floating-point columns as text at
    STATUS_SIGNIFICANT_DIGITS; the other columns as they are."""
    columns = con.execute(
        "select column_name, data_type from information_schema.columns "
        "where table_schema = ? and table_name = ? order by ordinal_position",
        [SCHEMA, mart],
    ).fetchall()
    fields = []
    for name, data_type in columns:
        quoted = sql_identifier(name)
        value = f"t.{quoted}"
        if data_type in ("DOUBLE", "FLOAT", "REAL"):
            value = f"printf('%.{STATUS_SIGNIFICANT_DIGITS}g', {value})"
        fields.append(f"{quoted} := {value}")
    return f"struct_pack({', '.join(fields)})"


def _changes(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    """What changed from one version's marts to the next's, one line a mart."""
    lines = [f"new table {m} ({after[m][0]} rows)" for m in sorted(after.keys() - before.keys())]
    lines += [f"table {m} removed" for m in sorted(before.keys() - after.keys())]
    for m in sorted(before.keys() & after.keys()):
        (n_before, rows_before), (n_after, rows_after) = before[m], after[m]
        if n_before != n_after:
            lines.append(f"{m}: {n_before} -> {n_after} rows")
        elif rows_before != rows_after:
            lines.append(f"{m}: values changed ({n_after} rows)")
    return lines


def _facts_of(
    serving: Path, versions: list[str]
) -> dict[str, tuple[str, dict[str, tuple[int, int]] | None]]:
    """:func:`_version_facts` of each of ``versions`` whose file is there; a damaged one is
    said (its quality state "unreadable (why)"), and the rest reported."""
    import duckdb

    facts: dict[str, tuple[str, dict[str, tuple[int, int]] | None]] = {}
    for v in versions:
        if (serving / VERSIONS / v / CURRENT_DB).is_file():
            try:
                facts[v] = _version_facts(serving / VERSIONS / v / CURRENT_DB)
            except duckdb.Error as error:
                facts[v] = (f"unreadable ({printable(str(error).splitlines()[0])})", None)
    return facts


def _build_database() -> Path | None:
    """The build database (``CONCORD_DB_PATH``), where there is one."""
    database = paths.build_db_path()
    return database if database.is_file() else None


def _build_against_publication(database: Path | None, publication: dict) -> str | None:
    """Whether the build database is what the current version was published from, decided
    by the bytes (:func:`concord_io.quality.build_identity`, recorded by publish in
    ``meta.publication``), in one line; None without a build database."""
    from concord_io.quality import build_identity
    from concord_io.serving.publish import build_columns

    if database is None:
        return None
    version = publication["version"]
    now = build_columns(build_identity(database))
    if not now.keys() <= publication.keys():
        return (
            f"  version {version} does not record which build it was published from (it was "
            f"published before Concord recorded that), so whether {database} is published is "
            f"unknown; to publish the build, run `{PUBLISH_COMMAND}`"
        )
    if all(publication[column] == value for column, value in now.items()):
        return f"  published from {database} as it is now (same size and SHA-256)"
    spark = database.with_name(paths.SPARK_MIRROR)  # `concord build --target spark`'s build
    if spark.is_file() and all(
        publication.get(column) == value
        for column, value in build_columns(build_identity(spark)).items()
    ):
        return f"  published from {spark}, Spark's build, as it is now (same size and SHA-256)"
    return (
        f"  the build database {database} has changed since version {version} was "
        "published: the serving file, its Parquet files and the report still show that "
        f"version; to publish the build, run `{PUBLISH_COMMAND}`"
    )


def _no_current_version(serving: Path, database: Path | None) -> list[str]:
    """What status says where readers find no current version: nothing was ever published,
    or a link of the serving folder (or the version it points at) is gone while versions
    are kept."""
    from concord_io.serving.publish import CURRENT, version_folders

    again = (
        f"run `{PUBLISH_COMMAND}` to publish the build database {database} again"
        if database is not None
        else f"run `{PROG} build` to build and publish again"
    )
    kept = _facts_of(serving, version_folders(serving))
    if not kept:
        if database is None:
            return [f"Nothing published in {serving} yet: run `{PROG} build`."]
        return [
            f"Nothing published in {serving} yet; the build database {database} is not "
            f"published: run `{PUBLISH_COMMAND}`."
        ]
    link = serving / CURRENT
    if not link.is_symlink():
        reason = f"{CURRENT} is missing"
    elif not link.exists():
        reason = f"{CURRENT} points at {os.readlink(link)}, which is missing"
    else:
        reason = f"{CURRENT_DB} is missing"
    return [
        f"No current version in {serving}: {reason}, so readers find nothing; "
        f"{len(kept)} version(s) in {serving / VERSIONS}:",
        *(f"    {v}: quality {quality}" for v, (quality, _) in kept.items()),
        f"  {again}",
    ]


def _quarantine_and_failing_lines(con, marts: list[str]) -> list[str]:
    """The published version's quarantined rows by study and reason, and its failing dbt
    tests (``marts``: the tables it publishes)."""
    lines = []
    if "dq_quarantine" in marts:
        quarantined = con.execute(
            "select study, reason, count(*) from marts.dq_quarantine "
            "group by study, reason order by study, count(*) desc, reason"
        ).fetchall()
        lines.append(f"Quarantined rows: {sum(n for *_, n in quarantined)}")
        lines += [f"  {s}: {n} x {printable(r)}" for s, r, n in quarantined]
    if TEST_FAILURES_TABLE in marts:
        failing = con.execute(
            f"select test_name, model_name, status, n_failures, failures_relation "
            f"from marts.{TEST_FAILURES_TABLE} order by model_name, test_name"
        ).fetchall()
        lines.append(f"Failing tests in the published build: {len(failing)}")
        lines += [
            f"  {t} on {m}: {s}, {n} rows" + (f" (rows in {rel})" if rel else "")
            for t, m, s, n, rel in failing
        ]
    return lines


def _probe_run_lines(landed: dict[str, str], published_runs: list[str]) -> list[str]:
    """Each landed probe run and its model, and whether the published version holds it."""
    return [f"Probe runs landed in {paths.landing_dir() / 'probe'}: {len(landed)}"] + [
        f"  {printable(r)}: {printable(model)}"
        + ("  (published)" if r in published_runs else "  (not built)")
        for r, model in landed.items()
    ]


def _mcq_run_lines(landing: Path, published: Path | None) -> list[str]:
    """Each landed cross-lingual run, one line: model, variant, tasks, languages, items and
    answers, accuracy where graded (the published ``mcq_accuracy``, pooled over its
    languages), its source and when it landed, and whether the published version holds it."""
    import duckdb

    from concord_io.connect import connect_serving, open_duckdb

    runs, answers = (landing / "mcq" / "run_id=*" / f"{t}.parquet" for t in ("runs", "answers"))
    if not list(landing.glob("mcq/run_id=*/runs.parquet")):
        return [f"Cross-lingual runs landed in {landing / 'mcq'}: 0 (`concord land` lands them)"]
    with open_duckdb() as con:
        rows = con.execute(
            f"""
            select r.run_id, r.model, r.variant, r.source_folder, r.landed_at,
                string_agg(distinct a.task, ', ' order by a.task),
                string_agg(distinct a.language, ', ' order by a.language),
                count(distinct (a.task, a.item_id)), count(a.run_id)
            from read_parquet({sql_literal(str(runs))}) as r
            left join read_parquet({sql_literal(str(answers))}) as a using (run_id)
            group by all
            order by r.model, r.variant, r.run_id
            """
        ).fetchall()
    graded: dict[str, float] = {}
    built: set[str] = set()
    if published is not None:
        with connect_serving(published) as con:
            try:
                built = {r for (r,) in con.execute("select run_id from marts.fct_mcq_answers "
                                                   "group by run_id").fetchall()}  # fmt: skip
                graded = dict(
                    con.execute(
                        "select run_id, sum(accuracy_pct * n_gold_items) / sum(n_gold_items) "
                        "from marts.mcq_accuracy where n_gold_items > 0 group by run_id"
                    ).fetchall()
                )
            except duckdb.Error:  # a version published before these marts
                pass
    from concord_io.landing.seeds import read_model_aliases

    try:  # the name the marts give the model (its alias), with the harness's beside it
        aliases = read_model_aliases(paths.project_root())
    except ConcordError:  # an alias file the landing refuses: it says why
        aliases = {}
    lines = [f"Cross-lingual runs landed in {landing / 'mcq'}: {len(rows)}"]
    for run_id, model, variant, source, landed_at, tasks, langs, items, n in rows:
        accuracy = f", accuracy {graded[run_id]:.1f} %" if run_id in graded else ""
        named = f"{aliases[model]} [{model}]" if aliases.get(model, model) != model else model
        lines.append(
            f"  {printable(named)} ({printable(variant)}): task(s) {printable(tasks or '-')}, "
            f"language(s) {printable(langs or '-')}, {items} item(s), {n} answer(s)"
            f"{accuracy}; {printable(source)}, landed {landed_at:%Y-%m-%d %H:%M} UTC; "
            f"{run_id}" + ("  (published)" if run_id in built else "  (not built)")
        )
    return lines


def status_report(serving: Path | None = None) -> str:
    """What is published, when and from which build; whether the build database is what is
    published; the versions kept, each with its quality state, and what changed since the
    previous one; probe runs; quarantine; failing tests."""
    from concord_io.connect import connect_serving
    from concord_io.serving.export import probe_runs, published_marts
    from concord_io.serving.publish import current_version, read_record

    serving = serving or paths.serving_dir()
    current = serving / CURRENT_DB
    database = _build_database()
    lines = []
    landed = _landed_runs()
    if not current.exists():
        lines += _no_current_version(serving, database)
        published_runs: list[str] = []
    else:
        # the record is the truth (validated whole), and the version `current` points at
        kept = read_record(serving)
        now = current_version(serving)
        if now is not None and now not in kept:
            kept.append(now)
        facts = _facts_of(serving, kept)
        with connect_serving(current) as con:
            cursor = con.execute("select * from meta.publication")
            names = [d[0] for d in cursor.description]
            publication = dict(zip(names, cursor.fetchall()[0], strict=True))
            version = publication["version"]
            lines += [
                f"Published version {version} -> {current.resolve()}",
                *filter(None, [_build_against_publication(database, publication)]),
                f"  built {publication['built_at']}, published {publication['published_at']}; "
                f"{len(facts)} version(s) kept:",
            ]
            lines += [
                f"    {v}: quality {quality}" + ("  (current)" if v == version else "")
                for v, (quality, _) in facts.items()
            ]
            older = [v for v in facts if v < version]
            before = facts[older[-1]][1] if older else None
            after = facts[version][1] if version in facts else None
            if before is not None and after is not None:
                changed = _changes(before, after)
                lines.append(
                    f"  Since {older[-1]}: "
                    + (f"{len(changed)} table(s) changed" if changed else "no table changed")
                )
                lines += [f"    {line}" for line in changed]
            marts = published_marts(con)
            rows = {
                m: con.execute(f'select count(*) from {SCHEMA}."{m}"').fetchall()[0][0]
                for m in marts
            }
            lines.append(f"  {len(marts)} tables in schema {SCHEMA}, {sum(rows.values())} rows")
            published_runs = probe_runs(con)
            lines += _quarantine_and_failing_lines(con, marts)
    lines += _mcq_run_lines(paths.landing_dir(), current if current.exists() else None)
    lines += _probe_run_lines(landed, published_runs)
    generated, last_failures = _last_build_failures(_target_dir())
    if generated:
        lines.append(f"Last dbt invocation {generated}: {len(last_failures)} test(s) not passing")
        lines += [f"  {printable(f)}" for f in last_failures]
    return "\n".join(lines)


@app.command()
def status(
    serving: Annotated[
        Path | None, typer.Option(help="serving folder (default: warehouse/serving)")
    ] = None,
) -> None:
    """What is published, when, from which build; probe runs; quarantined rows; failing tests."""
    _console().print(status_report(serving), markup=False)


# ---------------------------------------------------------------------------------------------
# export


@app.command()
def export(
    format: Annotated[str, typer.Option("--format", "-f", help="csv, xlsx or parquet")] = "csv",
    mart: Annotated[
        list[str] | None,
        typer.Option("--mart", "-m", help="a mart to export (repeatable; default all)"),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="folder (default: warehouse/exports)")] = None,
    serving: Annotated[
        Path | None, typer.Option(help="serving folder or file (default: warehouse/serving)")
    ] = None,
    probe_csv: Annotated[
        bool, typer.Option("--probe-csv", help="the probe's six CSV files of the reference")
    ] = False,
    run: Annotated[
        str | None,
        typer.Option("--run", help="probe run (with --probe-csv; default: the only one)"),
    ] = None,
) -> None:
    """Export published marts (one stable file per mart, with column descriptions)."""
    from concord_io.serving.export import export_marts, export_probe

    if probe_csv:
        if mart:
            raise ConcordError("--mart cannot be combined with --probe-csv")
        written = export_probe(out, run, serving)
    else:
        if run is not None:
            raise ConcordError("--run only applies with --probe-csv")
        written = export_marts(format, mart, out, serving)
    for path in written:
        print(printable(path))


# ---------------------------------------------------------------------------------------------
# land


@app.command()
def land(
    landing: Annotated[
        Path | None, typer.Option(help="landing folder (default: CONCORD_LANDING_DIR)")
    ] = None,
) -> None:
    """Check the seed files and the cross-lingual study's input files, and land them as
    Parquet (one line per folder): what a Spark build needs first (docs/spark.md)."""
    from concord_io.landing import land as land_inputs

    project = paths.project_root()
    for line in land_inputs(project, landing or paths.landing_dir(project)).lines():
        print(printable(line))


# ---------------------------------------------------------------------------------------------
# add


class AddGroup(TyperGroup):
    """``concord add PATH``: a first argument that is no command is a folder, imported by
    the command of the harness that wrote it (``concord_io.cli.add.detect_harness``)."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            from concord_io.cli.add import detect_harness

            harness = detect_harness(Path(args[0]))
            return harness, self.commands[harness], args
        return super().resolve_command(ctx, args)


add_app = _command_group(
    "add",
    "Import a model's answers into the cross-lingual study: `concord add PATH` (the "
    "harness found from its files), or lmeval, inspect.",
    cls=AddGroup,
)
app.add_typer(add_app)


def _add_command(harness: str, path_help: str, summary: str) -> Callable[..., None]:
    """``concord add <harness>``: one command per harness, the same flags."""

    def add(
        path: Path,  # annotated below: its help is the harness's
        task_pattern: Annotated[
            str | None,
            typer.Option(
                "--task-pattern",
                help="where the language stands in the task names, e.g. xcopa_{lang} "
                "(default auto: the one language tag in each name)",
            ),
        ] = None,
        as_folder: Annotated[
            str | None,
            typer.Option(
                "--as", help="folder under seeds/mcq/answer_sources/ (default: the model's slug)"
            ),
        ] = None,
        variant: Annotated[
            str, typer.Option(help="the run's variant: base, shuffled, or a name of your own")
        ] = "base",
        name: Annotated[
            str | None,
            typer.Option(
                help="what the marts call the model (an alias of the harness's name for it, "
                "added to seeds/models/model_aliases.csv); default: the harness's name, or the "
                "folder's name where the harness gives a local path"
            ),
        ] = None,
        domain_field: Annotated[
            str | None,
            typer.Option(
                "--domain-field",
                help="the field that names a sample's item's domain: of an lm-eval sample's "
                "document (default doc.domain; meta.subject for a nested one), of an Inspect "
                "sample's metadata (default domain)",
            ),
        ] = None,
        languages: Annotated[
            str | None,
            typer.Option(
                help="the languages the folder's tasks are compared in, comma-separated "
                "(en,de,fr), written to seeds/mcq/mcq_task_languages.csv; default: the "
                "languages their answers hold"
            ),
        ] = None,
        replace: Annotated[
            bool,
            typer.Option(
                "--replace",
                help="replace the run already in the destination folder (its results files and "
                "sample logs, or Inspect logs, that PATH does not bring); with --in-place, the "
                "lines registered in place for the model and variant",
            ),
        ] = False,
        new_variant: Annotated[
            bool,
            typer.Option(
                "--new-variant",
                help="start a variant no run of the study has, though its name is one letter "
                "from one it has (refused otherwise, naming the nearest)",
            ),
        ] = False,
        replace_languages: Annotated[
            bool,
            typer.Option(
                "--replace-languages",
                help="with --languages: replace the languages a task already compares (its "
                "lines, or its item files'), for every run of the task",
            ),
        ] = False,
        task: Annotated[
            str | None,
            typer.Option(
                "--task",
                help="the study's task the logs land as, whatever the harness calls it (xcloze: "
                "the shipped items, compared with the shipped models); default: the harness's "
                "task without its language",
            ),
        ] = None,
        in_place: Annotated[
            bool,
            typer.Option(
                "--in-place",
                help="register the folder where it is instead of copying it (the registry "
                "names the folder and the fingerprint of its files: a moved or changed folder "
                "is refused by name)",
            ),
        ] = False,
    ) -> None:
        from concord_io.cli.add import add_run

        lines = add_run(
            paths.project_root(), path, harness=harness, task_pattern=task_pattern,
            as_folder=as_folder, variant=variant, name=name,
            languages=None if languages is None else languages.split(","),
            domain_field=domain_field, replace_languages=replace_languages, replace=replace,
            new_variant=new_variant, task=task, in_place=in_place,
        )  # fmt: skip
        for line in lines:
            print(printable(line))

    add.__doc__ = summary
    add.__annotations__["path"] = Annotated[Path, typer.Argument(metavar="PATH", help=path_help)]
    return add


add_app.command("lmeval")(
    _add_command(
        "lmeval",
        "the --output_path folder of an lm_eval run (--log_samples)",
        "Copy an lm-evaluation-harness output folder into the study and register it (one "
        "line each: file, registry line, alias, run).",
    )
)
add_app.command("inspect")(
    _add_command(
        "inspect",
        "the --log-dir folder of an inspect eval run (.eval or .json logs)",
        "Copy Inspect AI logs of multiple-choice tasks into the study and register them, one "
        "folder per model (one line each: file, registry line, alias, run).",
    )
)


# ---------------------------------------------------------------------------------------------
# remove


@app.command()
def remove(
    run_id: Annotated[
        str, typer.Argument(metavar="RUN_ID", help="the run's id, as `concord status` lists it")
    ],
    delete_files: Annotated[
        bool,
        typer.Option("--delete-files", help="also delete the run's files (kept by default)"),
    ] = False,
) -> None:
    """Remove a cross-lingual run: its registry line goes and the landing follows (its
    folder removed); its files stay unless --delete-files."""
    from concord_io.cli.add import remove_run

    for line in remove_run(paths.project_root(), run_id, delete_files=delete_files):
        print(printable(line))


# ---------------------------------------------------------------------------------------------
# probe, open


probe_app = _command_group(
    "probe",
    "The reliability probe: run, demo, runs; and mcq, a multiple-choice task's items "
    "scored into lm-eval sample logs.\n\n`concord probe COMMAND ...` is `python -m "
    "probe COMMAND ...`, a job beside the warehouse; each command's options: `concord probe "
    "run --help`, `concord probe demo --help`, `concord probe runs --help`, `concord probe "
    "mcq --help`.",
)
app.add_typer(probe_app)

#: The probe's commands, with their help as the probe's own parser words it.
PROBE_COMMANDS = {
    "run": "score the seed stimuli with models and land runs",
    "demo": "build a tiny random model and run the probe on it",
    "runs": "list the landed runs, or remove one",
    "mcq": "score a multiple-choice task's items into lm-eval sample logs",
}


#: The options ``concord probe mcq`` takes beyond the probe's own (``python -m probe mcq``).
MCQ_OWN_OPTIONS = ("--land", "--variant")
MCQ_LAND_HELP = (
    "concord probe mcq lands the study's inputs first (the probe scores the landed items), "
    "and takes two options of its own: --land registers the logs where --out has them "
    "(concord add lmeval --in-place: nothing is copied into the study's inputs; with --replace "
    "the run scored again replaces the one registered) and lands them; --variant NAME names "
    "the run's variant (default base; a template is a variant)."
)


def _run_probe(name: str, args: list[str]) -> int:
    # run_main took --debug off the command line: the probe gets it as CONCORD_DEBUG
    env = {**os.environ, "CONCORD_DEBUG": "1"} if debug_requested() else None
    # a subprocess, not an import: concord_io and probe never import each other
    return subprocess.run(
        [sys.executable, "-m", "probe", name, *args], env=env, check=False
    ).returncode


def _probe_command(name: str) -> None:
    # every argument after the command, --help included, goes to the probe's own parser
    @probe_app.command(
        name,
        help=PROBE_COMMANDS[name].capitalize() + ".",
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        add_help_option=False,
    )
    def command(ctx: typer.Context) -> None:
        raise typer.Exit(_probe_mcq(ctx.args) if name == "mcq" else _run_probe(name, ctx.args))


def _probe_mcq(args: list[str]) -> int:
    """``concord probe mcq``: land the inputs (the probe reads the landed items), run
    ``python -m probe mcq``, and with ``--land`` import its logs into the study and land
    them (:data:`MCQ_LAND_HELP`)."""
    import argparse
    import tempfile

    if {"-h", "--help"} & set(args):
        status = _run_probe("mcq", args)
        print("\n" + MCQ_LAND_HELP)
        return status
    ours = argparse.ArgumentParser(add_help=False)
    for flag in ("--items", "--landing-dir"):  # the probe's, read here too
        ours.add_argument(flag, type=Path, default=None)
    ours.add_argument("--replace", action="store_true")
    ours.add_argument(MCQ_OWN_OPTIONS[0], action="store_true")
    ours.add_argument(MCQ_OWN_OPTIONS[1], default="base")
    known, rest = ours.parse_known_args(args)
    project = paths.project_root(known.items)
    landing = known.landing_dir or paths.landing_dir(project)
    from concord_io.landing import land

    landed = land(project, landing)
    written = sum(o.status != "unchanged" for o in landed.outcomes)
    print(f"inputs landed in {printable(landing)}: {written} folder(s) written or removed")
    probe_args = [*rest, "--items", str(project), "--landing-dir", str(landing)]
    probe_args += ["--replace"] if known.replace else []
    if not known.land:
        return _run_probe("mcq", probe_args)
    with tempfile.TemporaryDirectory() as scratch:
        result = Path(scratch) / "result.json"
        status = _run_probe("mcq", [*probe_args, "--result-json", str(result)])
        if status != 0:
            return status
        scored = json.loads(result.read_text(encoding="utf-8"))
    from concord_io.cli.add import add_lmeval as add
    from concord_io.landing import land_mcq

    lines = add(project, Path(scored["folder"]), task_pattern=f"{scored['task']}_{{lang}}",
                variant=known.variant, replace=known.replace, in_place=True)  # fmt: skip
    lines = [line for line in lines if not line.startswith("next:")]
    for line in lines + land_mcq(project, landing).lines():
        print(printable(line))
    return 0


for _name in PROBE_COMMANDS:
    _probe_command(_name)


class Page(StrEnum):
    report = "report"
    docs = "docs"
    quality = "quality"


OPENABLE = {
    "report": lambda: paths.report_dir() / "index.html",
    "docs": lambda: paths.report_dir() / "docs" / "index.html",
    "quality": lambda: (
        paths.quality_dir() / "gx" / "uncommitted" / "data_docs" / "local_site" / "index.html"
    ),
}


@app.command("open")
def open_(
    what: Annotated[Page, typer.Argument(help="which page")] = Page.report,
    browser: Annotated[
        bool, typer.Option("--browser", help="open it in a web browser instead of printing")
    ] = False,
) -> None:
    """Print the path of the report (or dbt docs, or the quality data docs), or open it."""
    name = Page(what).value
    page = OPENABLE[name]()
    if not page.is_file():
        raise ConcordError(f"{page}: no {name} page yet", hint="run `concord build` first")
    if browser and webbrowser.open(page.as_uri()):
        return
    print(page)


# ---------------------------------------------------------------------------------------------
# shell completion (Typer's scripts and installers)

Shell = typer_completion.Shells
SHELLS = tuple(shell.value for shell in Shell)
COMPLETION_OPTIONS = ("--install-completion", "--show-completion")


def _this_shell(option: str) -> str:
    """The shell this command runs in (a parent process that is a shell), for ``option``
    given without a shell name."""
    try:
        return shellingham.detect_shell()[0]
    except shellingham.ShellDetectionFailure:
        raise ConcordError(
            f"{option}: cannot tell which shell this is",
            hint=f"name it: `{PROG} {option} bash` (or {', '.join(SHELLS[1:])})",
        ) from None


def _naming_the_shell(args: list[str]) -> list[str]:
    """``args`` with the shell this runs in after a completion option given alone: Typer's
    options cannot take an optional value, so the shell is filled in before parsing."""
    if args and args[0] in COMPLETION_OPTIONS and (len(args) == 1 or args[1].startswith("-")):
        return [args[0], _this_shell(args[0]), *args[1:]]
    return args


def _complete_var() -> str:
    # the variable the completion scripts set when they ask `concord` for completions
    return f"_{PROG.upper()}_COMPLETE"


def _show_completion(ctx: typer.Context, shell: Shell | None) -> None:
    if shell is None or ctx.resilient_parsing:  # resilient: while completing, not asked
        return
    print(
        typer_completion.get_completion_script(
            prog_name=PROG, complete_var=_complete_var(), shell=shell.value
        )
    )
    raise typer.Exit(0)


def _install_completion(ctx: typer.Context, shell: Shell | None) -> None:
    if shell is None or ctx.resilient_parsing:
        return
    name, path = typer_completion.install(
        shell=shell.value, prog_name=PROG, complete_var=_complete_var()
    )
    print(f"{name} completion installed in {path}; it works in shells started from now on")
    raise typer.Exit(0)


@app.callback()
def _options(
    debug: Annotated[
        bool, typer.Option("--debug", help="show tracebacks (also CONCORD_DEBUG=1)")
    ] = False,
    install_completion: Annotated[
        Shell | None,
        typer.Option(
            "--install-completion",
            callback=_install_completion,
            is_eager=True,
            metavar="[SHELL]",
            help=f"install tab completion for SHELL ({', '.join(SHELLS)}; default: the shell "
            "this runs in), then open a new shell",
        ),
    ] = None,
    show_completion: Annotated[
        Shell | None,
        typer.Option(
            "--show-completion",
            callback=_show_completion,
            is_eager=True,
            metavar="[SHELL]",
            help="print the completion script for SHELL (default: the shell this runs in), "
            "to install it by hand",
        ),
    ] = None,
    project_dir: Annotated[
        Path | None,
        typer.Option(
            "--project-dir",
            help="the Concord project to work on (default: DBT_PROJECT_DIR, else the folder "
            "this runs in or the nearest above it with a dbt_project.yml)",
        ),
    ] = None,
) -> None:
    """Concord: build, inspect and export the warehouse."""
    if project_dir is not None or os.environ.get("DBT_PROJECT_DIR", "").strip():
        # checked now, and handed to every stage and dbt as an absolute path: a relative
        # value would name another folder from the stages' working directory
        os.environ["DBT_PROJECT_DIR"] = str(paths.project_root(project_dir))


def _invoke(argv: list[str] | None) -> int:
    typer_completion.completion_init()  # Typer's completion classes, which its scripts call
    command = typer.main.get_command(app)
    args = _naming_the_shell(sys.argv[1:] if argv is None else argv)
    try:
        result = command.main(args=args, prog_name=PROG, standalone_mode=False)
    except typer.Abort:
        raise KeyboardInterrupt from None
    except NoArgsIsHelpError as error:  # `concord` or `concord probe` alone: its help
        print(error.format_message(), file=sys.stderr)
        return 2
    except typer.TyperException as error:  # a bad flag or argument (Click's UsageError)
        context = getattr(error, "ctx", None)
        path = context.command_path if context else "concord"
        message = error.format_message() if hasattr(error, "format_message") else str(error)
        raise ConcordError(message, hint=f"see `{path} --help`") from None
    return result if isinstance(result, int) else 0


def main(argv: list[str] | None = None) -> None:
    run_main(_invoke, argv)
