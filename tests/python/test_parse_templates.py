"""The partial-parse templates that let a test's dbt call skip a full parse
(concord_io.project): one per parse state, made once and shared by pytest's workers. No dbt
runs here: a template is a file, and which state a call is in is a key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from concord_io import project
from concord_io.project import PARTIAL_PARSE, dbt_invocation


@pytest.fixture
def parses(monkeypatch, tmp_path) -> project._PartialParses:
    """A fresh template store in a shared folder, standing in for the process's own."""
    store = project._PartialParses()
    monkeypatch.setattr(project, "_PARSES", store)
    project.share_parse_templates(tmp_path / "templates")
    return store


def key_of(args: list[str], project_dir: Path, database: Path) -> str | None:
    _, env, _ = dbt_invocation(args, project_dir, database)
    return project._PartialParses.key(args, env)


def test_copies_laid_out_alike_share_a_parse_state_and_other_names_do_not(tmp_path):
    build = ["build", "--select", "stg_mcq__answers"]
    one, two = tmp_path / "one", tmp_path / "two"
    assert key_of(build, one, one / "concord.duckdb") == key_of(build, two, two / "concord.duckdb")
    # another database name, other vars, a database outside the copy's reach: other states
    assert key_of(build, one, one / "x.duckdb") != key_of(build, one, one / "concord.duckdb")
    with_vars = [*build, "--vars", "{bootstrap_resamples: 200}"]
    assert key_of(with_vars, one, one / "concord.duckdb") != key_of(
        build, one, one / "concord.duckdb"
    )
    assert key_of(build, tmp_path / "a" / "b" / "c", tmp_path / "concord.duckdb") is None


def test_a_template_another_process_made_is_used_without_parsing(parses, tmp_path, monkeypatch):
    """What one worker parsed, the other copies: no second parse of the same state."""
    made = parses.root / "k1.msgpack"
    made.write_bytes(b"template")

    def must_not_parse(*args):
        raise AssertionError("parsed again")

    monkeypatch.setattr(parses, "_parse", must_not_parse)
    target = tmp_path / "copy" / "target"
    parses.seed("k1", ["build"], {}, target)
    assert (target / PARTIAL_PARSE).read_bytes() == b"template"


def test_a_state_no_process_has_is_parsed_once_into_the_shared_folder(
    parses, tmp_path, monkeypatch
):
    calls = []

    def parse(key, args, env, kept):
        calls.append(key)
        kept.write_bytes(b"parsed")

    monkeypatch.setattr(parses, "_parse", parse)
    for name in ("a", "b"):
        parses.seed("k2", ["build"], {}, tmp_path / name / "target")
    assert calls == ["k2"]
    assert (parses.root / "k2.msgpack").read_bytes() == b"parsed"
    assert (tmp_path / "b" / "target" / PARTIAL_PARSE).read_bytes() == b"parsed"


def test_the_first_template_adopted_stays(parses, tmp_path):
    """A pristine copy's own partial parse becomes the template only where none is kept:
    another worker's pristine build of the same state does not replace it under a reader."""
    (parses.root / "k3.msgpack").write_bytes(b"first")
    written = tmp_path / "target" / PARTIAL_PARSE
    written.parent.mkdir()
    written.write_bytes(b"second")
    parses.adopt("k3", written.parent)
    assert (parses.root / "k3.msgpack").read_bytes() == b"first"
    assert parses.made["k3"] == parses.root / "k3.msgpack"


HOLD = """
import sys
from pathlib import Path
from concord_io import project
store = project._PartialParses()
store.root = Path(sys.argv[1])
with store._holding("k4"):
    print("held", flush=True)
"""


def test_one_process_at_a_time_makes_a_state(parses):
    """The lock per state: while this process holds it, another cannot make the template."""
    with parses._holding("k4"):
        other = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(parses.root)], stdout=subprocess.PIPE, text=True
        )
        with pytest.raises(subprocess.TimeoutExpired):
            other.wait(timeout=2)  # still waiting for the lock
    out, _ = other.communicate(timeout=60)
    assert out == "held\n" and other.returncode == 0
