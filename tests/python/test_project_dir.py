"""The commands work on the project they run in, never on the package's install location: a
second copy of the project sharing this environment writes only into itself, and a
non-editable install (the packages outside the project) lands into the project it runs in."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from test_add_lmeval import TWO_LANGUAGES, harness_output

from concord_io import paths
from concord_io.errors import ConcordError
from concord_io.project import PROJECT_ROOT, copy_project

CONCORD = Path(sys.executable).parent / "concord"
# what would send a command elsewhere than the folder it runs in
PLACE_VARIABLES = ("DBT_PROJECT_DIR", "CONCORD_LANDING_DIR", "CONCORD_DB_PATH")


def tree_digest(folder: Path) -> str:
    """One hash of every file's path and bytes under ``folder``."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def run(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in PLACE_VARIABLES}
    return subprocess.run(
        argv, cwd=cwd, env={**clean, **env}, capture_output=True, text=True, check=False
    )


# ----------------------------------------------------------------------- finding the project


def concord_project(folder: Path, name: str = "concord") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dbt_project.yml").write_text(f"name: '{name}'\nversion: '1'\n")
    return folder


def test_the_project_is_the_folder_it_runs_in_or_the_nearest_above(tmp_path, monkeypatch):
    monkeypatch.delenv("DBT_PROJECT_DIR", raising=False)
    project = concord_project(tmp_path / "study")
    (project / "models" / "marts").mkdir(parents=True)
    monkeypatch.chdir(project / "models" / "marts")
    assert paths.project_root() == project.resolve()
    assert paths.landing_dir() == project.resolve() / "warehouse" / "landing"
    other = concord_project(tmp_path / "other")
    assert paths.project_root(other) == other.resolve()  # --project-dir
    monkeypatch.setenv("DBT_PROJECT_DIR", str(other))
    assert paths.project_root() == other.resolve()  # dbt's variable, as dbt reads it


@pytest.mark.parametrize(
    ("where", "message"),
    [
        (
            "nothing",
            "no Concord project here: {cwd} and the folders above it have no dbt_project.yml",
        ),
        ("another", "{cwd}: {cwd}/dbt_project.yml is the dbt project 'jaffle_shop', not Concord's"),
        ("folder", "no Concord project here"),  # a dbt_project.yml that is a folder
    ],
)
def test_a_folder_that_is_no_concord_project_is_refused_in_one_line(
    where, message, tmp_path, monkeypatch
):
    monkeypatch.delenv("DBT_PROJECT_DIR", raising=False)
    cwd = tmp_path / "here"
    cwd.mkdir()
    if where == "another":
        concord_project(cwd, "jaffle_shop")
    elif where == "folder":
        (cwd / "dbt_project.yml").mkdir()
    monkeypatch.chdir(cwd)
    with pytest.raises(ConcordError) as caught:
        paths.project_root()
    assert caught.value.message.startswith(message.format(cwd=cwd.resolve()))
    assert "--project-dir or DBT_PROJECT_DIR" in caught.value.hint


def test_an_explicit_project_is_taken_as_given_and_checked(tmp_path, monkeypatch):
    monkeypatch.chdir(concord_project(tmp_path / "here"))
    with pytest.raises(ConcordError, match=r"^--project-dir .*/here/models: has no dbt_proj"):
        paths.project_root(tmp_path / "here" / "models")  # no walking up from a given one
    monkeypatch.setenv("DBT_PROJECT_DIR", "~/study")
    with pytest.raises(ConcordError, match=r"^DBT_PROJECT_DIR=~/study: '~' is not expanded"):
        paths.project_root()


def test_concord_refuses_a_project_dir_that_is_not_a_project_in_one_line(tmp_path):
    result = run([str(CONCORD), "--project-dir", str(tmp_path), "status"], tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines()[0] == (
        f"error: --project-dir {tmp_path.resolve()}: has no dbt_project.yml"
    )


# ------------------------------------------------------------------------- a second copy


def installed_as_a_wheel(site: Path) -> Path:
    """The packages laid out as a non-editable install lays them out (``site-packages``:
    the packages that pyproject.toml names, their data included), nothing of the project."""
    config = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())
    for pattern in config["tool"]["setuptools"]["packages"]["find"]["include"]:
        package = pattern.rstrip("*")
        shutil.copytree(
            PROJECT_ROOT / package, site / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    return site


def test_a_second_copy_writes_only_into_itself_editable_or_not(tmp_path):
    first_seeds = tree_digest(PROJECT_ROOT / "seeds")
    first_landing = PROJECT_ROOT / "warehouse" / "landing"
    first_landed = tree_digest(first_landing) if first_landing.is_dir() else None
    second = copy_project(tmp_path / "second")
    output = harness_output(tmp_path / "lm-eval", TWO_LANGUAGES)

    # the shared (editable) environment, run in the second copy
    added = run(
        [str(CONCORD), "add", "lmeval", str(output), "--task-pattern", "belebele_{lang}"], second
    )
    assert added.returncode == 0, added.stderr
    assert (second / "seeds" / "mcq" / "answer_sources" / "org-model-1b").is_dir()
    assert "org-model-1b" in (second / "seeds" / "mcq" / "mcq_answer_sources.csv").read_text()

    # the packages installed elsewhere, run from a folder inside the second copy
    site = installed_as_a_wheel(tmp_path / "site-packages")
    code = (
        "import concord_io, sys; from concord_io.cli import main; "
        "print(concord_io.__file__); main(['land'])"
    )
    landed = run([sys.executable, "-c", code], second / "models", PYTHONPATH=str(site))
    assert landed.returncode == 0, landed.stderr
    assert landed.stdout.splitlines()[0] == str(site / "concord_io" / "__init__.py")
    landing = second / "warehouse" / "landing"
    assert [p.name for p in (landing / "mcq").iterdir() if p.name.startswith("run_id=org-model")]

    # the first copy (this repository) is as it was
    assert tree_digest(PROJECT_ROOT / "seeds") == first_seeds
    assert (tree_digest(first_landing) if first_landing.is_dir() else None) == first_landed


@pytest.mark.parametrize(
    ("given", "refused"),
    [("", None), ("elsewhere/landing", None), (" warehouse/landing", "blanks around"),
     ("~/landing", "'~' is not expanded")],
)  # fmt: skip
def test_the_reader_and_the_probe_resolve_the_landing_folder_one_way(
    monkeypatch, tmp_path, given, refused
):
    """One resolution of CONCORD_LANDING_DIR (concord_common.project_dir.landing_dir): the
    commands and the probe land in the same folder, and refuse the same values."""
    from probe import landing
    from probe.landing import LandingError, default_landing_dir

    monkeypatch.setenv("CONCORD_LANDING_DIR", given)
    monkeypatch.setattr(landing, "project_root", lambda: tmp_path)
    if refused is None:
        assert default_landing_dir() == paths.landing_dir(tmp_path)
        assert paths.landing_dir(tmp_path) == tmp_path / (given or "warehouse/landing")
        return
    with pytest.raises(ConcordError, match=refused):
        paths.landing_dir(tmp_path)
    with pytest.raises(LandingError, match=refused):
        default_landing_dir()
