"""One lock for the warehouse: the landing, a build through the plugin, publish and the probe's
landing exclude each other; the second waits and says in one line who holds it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from probe_fakes import fake_run_tables
from test_add_lmeval import harness_output, registry, sample, with_aliases
from test_landing_reader import make_project, mcq

from concord_common import warehouse_lock
from concord_common.warehouse_lock import LOCK_FILE
from concord_io.errors import ConcordError
from concord_io.project import dbt_invocation, start_dbt

CONCORD = Path(sys.executable).parent / "concord"
HOLD = (
    "import sys; from concord_common import UserError, warehouse_lock as w; "
    "w.acquire(sys.argv[1], 'the test holder', error=UserError); "
    "print('held', flush=True); sys.stdin.read()"
)


class Holder:
    """Another process holding the warehouse lock of ``landing`` until :meth:`release`."""

    def __init__(self, landing: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(landing)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None and self.process.stdout.readline() == "held\n"

    def release(self) -> None:
        self.process.communicate("", timeout=30)


def wait_for_line(process: subprocess.Popen, text: str, timeout: float = 180) -> list[str]:
    """The process's output lines up to the first that contains ``text``."""
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if text in line:
            return lines
    raise AssertionError(f"no line with {text!r}:\n{''.join(lines[-30:])}")


def test_a_landing_waits_for_the_holder_and_says_who_it_is(tmp_path):
    project = make_project(tmp_path)
    landing = tmp_path / "landing"
    holder = Holder(landing)
    landed = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "concord_io.cli",
            "--project-dir",
            str(project),
            "land",
            "--landing",
            str(landing),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        waiting = wait_for_line(landed, "waiting for the warehouse")[-1]
        assert waiting.startswith(f"waiting for the warehouse ({landing}): held by pid ")
        assert f"pid {holder.process.pid}, the test holder, since 20" in waiting
        time.sleep(0.5)
        assert landed.poll() is None and not (landing / "mcq").exists()  # nothing written
    finally:
        holder.release()
    out, _ = landed.communicate(timeout=120)
    assert landed.returncode == 0, out
    assert (landing / "mcq").is_dir()


def test_the_probes_landing_waits_for_a_build(tmp_path):
    from probe.landing import land_run
    from probe.stimuli import load_design

    landing = tmp_path / "landing"
    holder = Holder(landing)
    tables = fake_run_tables(load_design(), "r1")
    done: list[Path] = []
    writer = threading.Thread(target=lambda: done.append(land_run(landing, "r1", tables)))
    writer.start()
    try:
        time.sleep(1.0)
        assert writer.is_alive() and not (landing / "probe" / "run_id=r1").exists()
    finally:
        holder.release()
    writer.join(timeout=60)
    assert done == [landing / "probe" / "run_id=r1"] and done[0].is_dir()


def test_the_lock_is_reentrant_in_a_process_and_given_back_whole(tmp_path):
    path = warehouse_lock.acquire(tmp_path, "outer", error=ConcordError)
    warehouse_lock.acquire(tmp_path, "inner", error=ConcordError)

    def free() -> bool:  # can another process take it now?
        probe = (
            "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR); "
            "fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)"
        )
        return subprocess.run([sys.executable, "-c", probe, str(path)]).returncode == 0

    warehouse_lock.release(path)
    assert not free()  # the outer holding remains
    assert "outer" in path.read_text()
    warehouse_lock.release(path)
    assert free()
    warehouse_lock.acquire(tmp_path, "again", error=ConcordError)
    warehouse_lock.release_all()
    assert free()


def hold_publish_lock(folder: Path) -> None:
    from concord_io.serving import publish

    with publish._publish_lock(folder):
        pass


@pytest.mark.parametrize(
    ("name", "take", "what"),
    [
        (LOCK_FILE, lambda f: warehouse_lock.acquire(f, "x", error=ConcordError), "warehouse"),
        (".publish.lock", hold_publish_lock, "publish"),
    ],
)
def test_a_lock_file_that_is_a_link_or_no_file_is_never_opened(tmp_path, name, take, what):
    folder = tmp_path / "folder"
    folder.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    os.symlink(victim, folder / name)
    with pytest.raises(ConcordError, match=f"the {what} lock is a symbolic link"):
        take(folder)
    assert victim.read_text() == "keep me"
    (folder / name).unlink()
    (folder / name).mkdir()
    with pytest.raises(ConcordError, match=f"the {what} lock is not a regular file"):
        take(folder)


def test_a_dbt_build_holds_the_lock_from_its_landing_to_its_end(tmp_path, project_copy):
    """dbt through the plugin waits for the holder before it lands, then holds the lock for
    the whole call: a landing started meanwhile waits for dbt to end."""
    database = tmp_path / "build" / "concord.duckdb"
    _, env, project = dbt_invocation([], project_copy, database)
    landing = project / env["CONCORD_LANDING_DIR"]
    holder = Holder(landing)
    dbt = start_dbt(["run", "--select", "stg_mcq__runs"], project_copy, database)
    try:
        wait_for_line(dbt, "waiting for the warehouse")
    finally:
        holder.release()
    wait_for_line(dbt, "concord landing")
    assert "dbt run" in (landing / LOCK_FILE).read_text()
    out, _ = dbt.communicate(timeout=300)
    assert dbt.returncode == 0, out
    # given back at the end: another takes it at once
    assert warehouse_lock.acquire(landing, "after", error=ConcordError)
    warehouse_lock.release_all()


def test_two_adds_at_once_keep_every_line_of_both(tmp_path):
    """Two `concord add lmeval` of different harness folders at once both exited 0 and lost
    an alias and two of four task-language lines: each rewrote the seed files from its own
    earlier read. Each holds the warehouse lock from its first read to its last write:
    started while the test holds the lock, both wait before reading anything, then run one
    after the other, and every line of both is there."""
    project = make_project(tmp_path)
    settings = project / "dbt_project.yml"
    settings.write_text(
        settings.read_text().replace("[en, it]", "[]")
    )  # no override: --languages writes
    aliases = with_aliases(project)
    landing = tmp_path / "landing"
    commands = []
    for model, task in (("org/a", "xcopa"), ("org/b", "xstory")):
        logs = {
            f"{task}_{lang}": [sample(0, [-1.0, -2.0], [" a", f" {lang}"])]
            for lang in "de en".split()
        }
        output = harness_output(tmp_path / task, logs, model=model)
        commands.append(
            [CONCORD, "add", "lmeval", output, "--name", model.upper(), "--languages", "de,en"]
        )
    holder = Holder(landing)
    env = {**os.environ, "CONCORD_LANDING_DIR": str(landing)}
    adds = [
        subprocess.Popen(
            command,
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for command in commands
    ]
    try:
        for add in adds:
            waiting = wait_for_line(add, "waiting for the warehouse")[-1]
            assert f"held by pid {holder.process.pid}, the test holder" in waiting
    finally:
        holder.release()
    for add in adds:
        out, _ = add.communicate(timeout=120)
        assert add.returncode == 0, out
    assert sorted(registry(project).splitlines()[1:]) == [
        "org-a/samples_*.jsonl,lm_eval,org/a,base,,,,auto,,,,",
        "org-b/samples_*.jsonl,lm_eval,org/b,base,,,,auto,,,,",
    ]
    assert sorted(aliases.read_text().splitlines()[1:]) == ["org/a,ORG/A", "org/b,ORG/B"]
    assert sorted((mcq(project) / "mcq_task_languages.csv").read_text().splitlines()[1:]) == [
        "xcopa,de", "xcopa,en", "xstory,de", "xstory,en"
    ]  # fmt: skip
