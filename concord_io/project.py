"""Run the dbt project from Python: used by the tests and the benchmarks.

dbt runs in this process (``dbtRunner``), not as a subprocess: a dbt start costs seconds of
imports, paid once per process here instead of once per call. A call runs in a copy of the
project (``copy_project``) or, for the repository itself, in a pristine copy beside the
database, so the repository's own ``target/`` and warehouse are never touched.

Parsing is what is left of a start (about ten seconds for this project). dbt re-parses only
what changed when it finds ``partial_parse.msgpack`` in the target folder and the parse
state matches: the same profile (the database path as written), the same ``--vars`` and
the same environment variables that ``dbt_project.yml`` reads. So the database and landing
paths are given to dbt relative to the project folder, the same string for every copy laid
out the same way, and a new target folder starts from the partial parse of a pristine copy
with that state (parsed once per process): dbt then re-parses exactly the files a test
changed. A changed macro or ``dbt_project.yml`` makes dbt parse in full, as it always does.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from concord_common import warehouse_lock
from concord_common.settings import SETTINGS
from concord_io.dbt_sequence import close_duckdb

#: The repository this module runs from: tests and benchmarks run in a checkout (the
#: commands take their project from the folder they run in, concord_io.paths).
PROJECT_ROOT = Path(__file__).resolve().parents[1]

DBT = Path(sys.executable).parent / "dbt"
# what a dbt build needs; the venv, warehouse and target stay behind
PROJECT_PARTS = (
    "dbt_project.yml",
    ".dbtignore",
    "profiles.yml",
    "models",
    "macros",
    "seeds",
    "tests/dbt",
)
PARTIAL_PARSE = "partial_parse.msgpack"
# `dbt build` arguments that load and build every selected node but run no data test or
# unit test: for a build whose data tests already ran on the same inputs elsewhere, or
# whose tables are then compared with a build that runs them
NO_DATA_TESTS = ("--exclude-resource-type", "test", "--exclude-resource-type", "unit_test")
# environment variables that enter dbt's parse state (profiles.yml and dbt_project.yml)
STATE_ENV = tuple(name for name, s in SETTINGS.items() if s.parse_state)


@dataclass
class DbtResult:
    """What a dbt call did: ``returncode`` and ``stdout`` as the ``dbt`` command gives them
    (0 success, 1 a node or check failed, 2 dbt itself failed), and dbt's own result."""

    args: list[str]
    returncode: int
    stdout: str
    result: Any = None  # dbtRunnerResult.result: a RunExecutionResult, a Manifest, ...
    exception: BaseException | None = None
    stderr: str = field(default="")


def _relative(path: Path, start: Path) -> str:
    return os.path.relpath(path, start)


def _layout(project_dir: Path, database: Path) -> Path:
    """The project folder dbt runs in: ``project_dir``, or for the repository itself a
    pristine copy beside the database (made once)."""
    if project_dir.resolve() != PROJECT_ROOT:
        return project_dir
    copy = database.parent / "project"
    if not (copy / "dbt_project.yml").is_file():
        copy_project(copy)
    return copy


def dbt_invocation(
    args: list[str],
    project_dir: Path,
    database: Path,
    extra_env: dict[str, str] | None = None,
) -> tuple[list[str], dict[str, str], Path]:
    """The command line, environment and working folder that run dbt in ``project_dir``
    against ``database``.

    Target and logs go beside the database file, and the landing folder defaults to
    ``landing/`` beside it, so a run never reads the probe results of the real warehouse.
    Paths that this function chooses are given relative to the project folder (see the
    module's docstring); paths in ``extra_env`` are passed as they are.
    """
    database = Path(database).absolute()
    project = _layout(Path(project_dir).absolute(), database)
    work = database.parent
    env = {
        "CONCORD_DB_PATH": _relative(database, project),
        "CONCORD_LANDING_DIR": _relative(work / "landing", project),
        **(extra_env or {}),
    }
    argv = [
        *args,
        "--profiles-dir",
        str(project),
        "--project-dir",
        str(project),
        "--target-path",
        str(work / "target"),
        "--log-path",
        str(work / "logs"),
    ]
    return argv, env, project


def _option(args: list[str], *names: str) -> str:
    for i, arg in enumerate(args[:-1]):
        if arg in names:
            return args[i + 1]
    return ""


class _PartialParses:
    """Partial-parse files of pristine project copies, one per parse state, kept in a
    private folder that goes with the process, or in a folder that processes share (see
    :func:`share_parse_templates`)."""

    def __init__(self) -> None:
        self.root: Path | None = None
        self.made: dict[str, Path | None] = {}

    def _folder(self) -> Path:
        if self.root is None:
            self.root = Path(tempfile.mkdtemp(prefix="concord-dbt-parse-"))
            atexit.register(shutil.rmtree, self.root, True)
        return self.root

    @contextlib.contextmanager
    def _holding(self, key: str):
        """One process at a time makes or adopts the template of ``key``."""
        import fcntl

        with (self._folder() / f"{key}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield self._folder() / f"{key}.msgpack"

    @staticmethod
    def key(args: list[str], env: dict[str, str]) -> str | None:
        """The parse state of a call, or None where no template may stand in for it."""
        if (args[:1] or [""])[0] == "parse":
            return None
        state = {
            "vars": _option(args, "--vars"),
            "target": _option(args, "--target", "-t"),
            "profile": _option(args, "--profile"),
            **{k: env.get(k, os.environ.get(k)) for k in STATE_ENV},
        }
        # a template stands in only where the relative paths stay beside its own copy
        for name in ("CONCORD_DB_PATH", "CONCORD_LANDING_DIR"):
            value = state[name] or ""
            if Path(value).is_absolute() or value.startswith("../.."):
                return None
        return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()[:16]

    def seed(self, key: str, args: list[str], env: dict[str, str], target: Path) -> None:
        """Start ``target`` from the template of ``key``, parsing one first if need be."""
        if key not in self.made:
            with self._holding(key) as kept:
                if not kept.is_file():
                    self._parse(key, args, env, kept)
                self.made[key] = kept if kept.is_file() else None
        template = self.made[key]
        if template is not None:
            target.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(template, target / PARTIAL_PARSE)

    def adopt(self, key: str, target: Path) -> None:
        """The partial parse a call on a pristine copy just wrote becomes the template."""
        written = target / PARTIAL_PARSE
        if key not in self.made and written.is_file():
            with self._holding(key) as kept:
                if not kept.is_file():
                    shutil.copyfile(written, kept)
            self.made[key] = kept

    def _parse(self, key: str, args: list[str], env: dict[str, str], kept: Path) -> None:
        project = copy_project(self._folder() / key / "sub" / "project")
        flags = ["parse", "--quiet", "--no-write-json"]  # the template is the partial parse
        for name in ("--vars", "--target", "--profile"):
            if _option(args, name):
                flags += [name, _option(args, name)]
        argv, _, _ = dbt_invocation(flags, project, project / "concord.duckdb")
        result = invoke_dbt(argv, env, project)
        made = project / "target" / PARTIAL_PARSE
        if result.returncode == 0 and made.is_file():
            shutil.copyfile(made, kept)


_PARSES = _PartialParses()


def share_parse_templates(folder: Path) -> None:
    """Keep the partial-parse templates in ``folder``, shared by every process that calls
    this with it (pytest's workers: a parse state is parsed once per test run, not once per
    worker). The folder outlives the processes; its owner removes it."""
    folder.mkdir(parents=True, exist_ok=True)
    _PARSES.root = folder


@contextlib.contextmanager
def _environment(env: dict[str, str], cwd: Path):
    saved = {k: os.environ.get(k) for k in env}
    before = Path.cwd()
    os.environ.update(env)
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(before)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def invoke_dbt(
    argv: list[str],
    env: dict[str, str],
    cwd: Path,
    *,
    manifest: Any = None,
    callbacks: list | None = None,
) -> DbtResult:
    """``dbt <argv>`` in this process, with ``env`` set and ``cwd`` as working folder; with
    ``manifest`` (from an earlier ``parse``), dbt does not parse again."""
    from dbt.cli.main import dbtRunner

    out = io.StringIO()
    with _environment(env, cwd), contextlib.redirect_stdout(out):
        try:
            ran = dbtRunner(manifest=manifest, callbacks=callbacks or []).invoke(argv)
        finally:
            close_duckdb()
            # the warehouse lock the plugin took for the build: a dbt process gives it back
            # when it ends, dbt in this process when it returns
            warehouse_lock.release_all()
    if ran.success:
        code = 0
    elif ran.exception is not None:
        code = 2
    else:
        code = 1
    return DbtResult(argv, code, out.getvalue(), ran.result, ran.exception)


def run_dbt(
    args: list[str],
    project_dir: Path,
    database: Path,
    *,
    check: bool = True,
    extra_env: dict[str, str] | None = None,
    artifacts: bool = False,
    unit_tests: bool = False,
) -> DbtResult:
    """Run dbt in this process (see :func:`dbt_invocation`); raises with the end of its
    output when it fails and ``check`` is set. dbt writes its JSON artifacts (manifest,
    semantic manifest, run results) only with ``artifacts``: writing them costs about half
    a second a call, and most callers read dbt's result or the database instead. A
    ``build`` runs the selected models' unit tests only with ``unit_tests``: they check the
    models' code on fixed rows, whatever the data, so one build of the whole project runs
    them all (the tests' shared warehouse, and Spark's), not every build a test makes of its
    own data (34 s of dbt's threads in a test run)."""
    argv, env, project = dbt_invocation(args, project_dir, database, extra_env)
    if not artifacts:
        argv.append("--no-write-json")
    if args[:1] == ["build"] and not unit_tests:
        argv += ["--exclude-resource-type", "unit_test"]
    target = Path(database).absolute().parent / "target"
    key = _PARSES.key(args, env)
    pristine = Path(project_dir).absolute().resolve() == PROJECT_ROOT
    # the first call of a state on the repository's own (pristine) copy parses in full, and
    # what it writes becomes the template; any other call starts from the template
    first_pristine = pristine and key not in _PARSES.made
    seeded = key is not None and not first_pristine and not (target / PARTIAL_PARSE).exists()
    if seeded and key is not None:
        _PARSES.seed(key, args, env, target)
    result = invoke_dbt(argv, env, project)
    if seeded:
        # what dbt wrote still points into the template's folder, which goes with this
        # process: no later process may start from it
        (target / PARTIAL_PARSE).unlink(missing_ok=True)
    elif key is not None and pristine and result.returncode == 0:
        _PARSES.adopt(key, target)
    if check and result.returncode != 0:
        raise RuntimeError(f"dbt {' '.join(args)} failed:\n{result.stdout[-6000:]}")
    return result


def start_dbt(
    args: list[str], project_dir: Path, database: Path, extra_env: dict[str, str] | None = None
) -> subprocess.Popen:
    """dbt as its own process, in the background and its own process group (for the tests
    that kill a build); its output, line by line, on ``stdout``. It starts from the
    template of its parse state, as :func:`run_dbt`'s calls do, so it does not parse the
    project in full (the template lives as long as this process)."""
    argv, env, project = dbt_invocation(args, project_dir, database, extra_env)
    key = _PARSES.key(args, env)
    target = Path(database).absolute().parent / "target"
    if key is not None and not (target / PARTIAL_PARSE).exists():
        _PARSES.seed(key, args, env, target)
    # PYTHONUNBUFFERED: each log line as it happens
    return subprocess.Popen(
        [str(DBT), *argv],
        cwd=project,
        env={**os.environ, **env, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def copy_project(destination: Path) -> Path:
    """A copy of the dbt project that a test or benchmark may change freely."""
    destination = Path(destination)
    for part in PROJECT_PARTS:
        source = PROJECT_ROOT / part
        target = destination / part
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination
