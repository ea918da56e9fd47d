"""Markers that follow from what a test uses, so that a new test is marked without asking,
and a guard that holds every test to its markers.

A test that uses a built warehouse or a project copy (the fixtures below) runs dbt: it is a
``warehouse`` test. Every test under ``tests/probe`` needs the probe's extra (torch,
transformers): it is a ``probe`` test. Tests that run dbt or the probe some other way carry
the marker themselves. ``make test-fast`` deselects all of them (see pyproject.toml).

The guard: a test (or a fixture it sets up) that starts dbt without the ``warehouse``
marker, a browser without ``browser``, or loads a model without ``probe`` fails with a line
saying so, so the fast selection can never start one by accident.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

# pyspark.sql.connect, which Great Expectations imports where pyspark is installed, takes a
# __main__ without __spec__ or __file__ (as in a pytest-xdist worker) for a doctest run and
# exits the process. A spec named __main__ tells it otherwise and changes nothing else
# (multiprocessing's spawn skips re-importing a main module of that name).
_main = sys.modules["__main__"]
if getattr(_main, "__spec__", None) is None and not hasattr(_main, "__file__"):
    _main.__spec__ = importlib.machinery.ModuleSpec("__main__", None)

# the tests' Spark builds are small: the spark target tuned for small data (profiles.yml;
# their Spark build takes 61 s instead of 96 s), unless the caller chose otherwise
os.environ.setdefault("CONCORD_SPARK_SMALL_DATA", "1")

WAREHOUSE_FIXTURES = {"warehouse", "marts", "project_copy"}
TESTS = Path(__file__).resolve().parent
PROBE_TESTS = TESTS / "probe"

# what each marker allows a test to start: dbt in process (a module attribute replaced by a
# guard), a program as a child process (its file name), a model loaded (Hugging Face's
# from_pretrained, patched when transformers' auto classes are first imported)
GUARDED = {
    "warehouse": {"calls": [("concord_io.project", "invoke_dbt")], "programs": {"dbt", "mf"}},
    "browser": {"calls": [], "programs": {"chromium", "chromium-browser", "chrome"}},
    "probe": {"calls": [], "programs": set()},
}
MODEL_LOADER = "transformers.models.auto.auto_factory"
_ALLOWED: set[str] = set(GUARDED)  # outside a test (collection, hooks): everything


def _corpus_groups() -> dict[str, str]:
    """Bad-input case id -> its batch (cases of one batch share one dbt run)."""
    import yaml

    cases = yaml.safe_load((TESTS / "bad_input" / "cases.yml").read_text(encoding="utf-8"))
    return {c["id"]: c.get("batch", c["id"]) for c in cases["cases"] if "runner" not in c}


_CORPUS_GROUPS = _corpus_groups()


LONGEST_GROUP = "tests/python/test_mcq_answer_sources.py"


def worker_group(nodeid: str) -> str:
    """The group a test runs in on `make test`'s two workers: its module, so that module
    fixtures are made once, but one group for tests/spark (one Spark build) and one per
    batch of the bad-input corpus, whose cases share a dbt run per batch and nothing else."""
    path, _, name = nodeid.partition("::")
    if path.startswith("tests/spark/"):
        return "tests/spark"
    if path.endswith("test_bad_input_corpus.py") and name.startswith("test_bad_input_case["):
        return "bad_input:" + _CORPUS_GROUPS.get(name[len("test_bad_input_case[") : -1], name)
    return path


def pytest_xdist_make_scheduler(config, log):
    """`--dist loadgroup` by :func:`worker_group` (pytest-xdist 3.8 cannot put its own
    xdist_group marks into the node ids of pytest 9, so its loadgroup is plain load)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return worker_group(nodeid)

    return GroupScheduling(config, log)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if WAREHOUSE_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.warehouse)
        path = Path(item.path).resolve()
        if PROBE_TESTS in path.parents:
            item.add_marker(pytest.mark.probe)
        if path.parent.name == "spark":  # dbt builds on DuckDB and on Spark
            item.add_marker(pytest.mark.warehouse)

    # The shared warehouse takes a minute or more to build, and the Spark group several:
    # the first group that needs the warehouse goes first, so one worker builds it while
    # the other starts on Spark and then the groups that need no warehouse; the groups that
    # need it come last, when it is built.
    def needs_warehouse(item: pytest.Item) -> bool:
        return bool({"warehouse", "marts"} & set(getattr(item, "fixturenames", ())))

    # the longest group (the property test of builds that do only what changed, 100 s of
    # its 200 s) is that first group, so that it never ends the run alone
    first = next((i for i in items if worker_group(i.nodeid) == LONGEST_GROUP), None)
    first = first or next((i for i in items if needs_warehouse(i)), None)
    if first is not None:
        group = worker_group(first.nodeid)
        head = [i for i in items if worker_group(i.nodeid) == group]
        spark = [i for i in items if worker_group(i.nodeid) == "tests/spark"]
        rest = [i for i in items if worker_group(i.nodeid) not in (group, "tests/spark")]
        items[:] = (
            head
            + spark
            + [i for i in rest if not needs_warehouse(i)]
            + [i for i in rest if needs_warehouse(i)]
        )


def _refuse(marker: str, what: str):
    pytest.fail(
        f"this test starts {what} but is not marked `{marker}`: mark it "
        f"(@pytest.mark.{marker}) so that `make test-fast` leaves it out",
        pytrace=False,
    )


def _guard_call(marker: str, module_name: str, name: str) -> None:
    import importlib

    module = importlib.import_module(module_name)
    real = getattr(module, name)

    def guarded(*args, **kwargs):
        if marker not in _ALLOWED:
            _refuse(marker, f"{module_name}.{name}")
        _count(f"{name} {' '.join(map(str, args[0][:3])) if args else ''}")
        return real(*args, **kwargs)

    setattr(module, name, guarded)


def _count(what: str) -> None:
    """With CONCORD_TEST_CALL_LOG set, one line per dbt call or child process started
    (bench/results/tests.md counts them)."""
    log = os.environ.get("CONCORD_TEST_CALL_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(what.replace("\n", " ") + "\n")


class _GuardedPopen(subprocess.Popen):
    def __init__(self, args, *rest, **kwargs):
        argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
        program = Path(os.fsdecode(argv[0]).split()[0]).name if argv else ""
        _count(f"process {program} {' '.join(os.fsdecode(a) for a in argv[1:3])}"[:200])
        for marker, allowed in GUARDED.items():
            if program in allowed["programs"] and marker not in _ALLOWED:
                _refuse(marker, program)
        super().__init__(args, *rest, **kwargs)


class _GuardedModelLoads:
    """A meta path finder that, when transformers' auto classes are imported, wraps their
    from_pretrained so that only a test marked ``probe`` loads a model."""

    def find_spec(self, name, path=None, target=None):
        if name != MODEL_LOADER:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        run_module = spec.loader.exec_module

        def exec_module(module):
            run_module(module)
            real = module._BaseAutoModelClass.from_pretrained.__func__

            def from_pretrained(cls, *args, **kwargs):
                if "probe" not in _ALLOWED:
                    _refuse("probe", "a model (from_pretrained)")
                return real(cls, *args, **kwargs)

            module._BaseAutoModelClass.from_pretrained = classmethod(from_pretrained)

        spec.loader.exec_module = exec_module
        return spec


def pytest_configure(config: pytest.Config) -> None:
    for marker, allowed in GUARDED.items():
        for module_name, name in allowed["calls"]:
            _guard_call(marker, module_name, name)
    subprocess.Popen = _GuardedPopen  # type: ignore[misc]
    sys.meta_path.insert(0, _GuardedModelLoads())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem):
    global _ALLOWED
    _ALLOWED = {m for m in GUARDED if item.get_closest_marker(m) is not None}
    try:
        return (yield)
    finally:
        _ALLOWED = set(GUARDED)


@pytest.fixture(scope="session", autouse=True)
def _parse_templates_shared_by_the_workers(tmp_path_factory):
    """dbt parses each parse state once per test run, not once per worker: the workers keep
    their partial-parse templates in the run's folder (concord_io.project)."""
    if os.environ.get("PYTEST_XDIST_WORKER") is not None:
        from concord_io.project import share_parse_templates

        share_parse_templates(tmp_path_factory.getbasetemp().parent / "dbt-parse-templates")
