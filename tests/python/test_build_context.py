"""The build's context moves with every input of the incremental models but the answer files
(concord_io/build_context.py): each kind of input changed in turn changes it, so the next
incremental build computes every group again, as --full-refresh would
(test_mcq_answer_sources.py::test_a_build_of_what_changed_equals_a_full_rebuild_after_every_
kind_of_change builds it end to end, a model renamed by an alias among its changes)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from concord_io.build_context import build_context
from concord_io.landing import land
from concord_io.project import copy_project


@pytest.fixture(scope="module")
def landed(tmp_path_factory) -> tuple[Path, Path]:
    project = copy_project(tmp_path_factory.mktemp("context") / "project")
    landing = project / "landing"
    land(project, landing)
    return project, landing


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def rename_by_alias(project: Path, landing: Path) -> None:
    append(project / "seeds" / "models" / "model_aliases.csv", "mBERT,mBERT base\n")
    land(project, landing)  # the seed lands (as the plugin lands before every build)


CHANGES: dict[str, Callable[[Path, Path], object]] = {
    "a model's SQL": lambda p, _: append(
        p / "models" / "intermediate" / "mcq" / "int_mcq_answers_normalised.sql", "\n-- x\n"
    ),
    "a macro": lambda p, _: append(p / "macros" / "mcq_answers.sql", "\n{# x #}\n"),
    "a model's yml": lambda p, _: append(
        p / "models" / "marts" / "mcq" / "_mcq__models.yml", "\n# x\n"
    ),
    "dbt_project.yml": lambda p, _: append(p / "dbt_project.yml", "\n# x\n"),
    "a model alias (a seed file)": rename_by_alias,
}


@pytest.mark.parametrize("kind", list(CHANGES))
def test_each_kind_of_input_changes_the_context(kind, landed, tmp_path):
    project, landing = landed
    copy = copy_project(tmp_path / "project")
    copied_landing = Path(shutil.copytree(landing, tmp_path / "landing"))
    before = build_context(copy, copied_landing, {})
    assert before == build_context(project, landing, {})  # the same inputs, the same context
    CHANGES[kind](copy, copied_landing)
    assert build_context(copy, copied_landing, {}) != before


def test_the_vars_and_the_readers_version_change_it(landed, monkeypatch):
    project, landing = landed
    before = build_context(project, landing, {})
    assert build_context(project, landing, {"mcq_default_task": "other"}) != before
    assert build_context(project, landing, {"bootstrap_seed": 1}) != before
    monkeypatch.setattr("concord_io.landing.engine.reader_version", lambda: "9.9.9")
    assert build_context(project, landing, {}) != before


def test_the_python_models_packages_change_it(landed, monkeypatch):
    """A Python model that keeps its rows by group (concord_models.frames.kept_or_computed)
    versions them with the context: the code of the packages it imports is part of it."""
    project, landing = landed
    before = build_context(project, landing, {})
    monkeypatch.setattr("concord_io.build_context.PYTHON_PACKAGES", ("concord_models",))
    assert build_context(project, landing, {}) != before


def test_an_answer_file_its_registry_or_a_document_leaves_it_as_it_was(landed, tmp_path):
    """An answer file and its registry line are versioned with its run (only that run is
    computed again); a page of docs/ makes no row."""
    project = copy_project(tmp_path / "project")
    landing = Path(shutil.copytree(landed[1], tmp_path / "landing"))
    before = build_context(project, landing, {})
    answers = project / "seeds" / "mcq" / "answers" / "mBERT_Merged_Multilingual.csv"
    text = answers.read_bytes()
    cut = text.index(b"\n", text.index(b"\n") + 1) - 1  # the first row's last answer
    answers.write_bytes(
        text[:cut] + (b"A" if text[cut : cut + 1] != b"A" else b"B") + text[cut + 1 :]
    )
    registry = project / "seeds" / "mcq" / "mcq_answer_registry.csv"
    registry.write_text(registry.read_text().replace(",mBERT,mBERT,", ",mBERT 2,mBERT,"))
    (project / "docs").mkdir(exist_ok=True)
    (project / "docs" / "notes.md").write_text("x")
    runs = [o for o in land(project, landing).outcomes if o.folder.startswith("mcq/")]
    changed = {o.folder for o in runs if o.status != "unchanged"}
    assert changed and all("mbert" in folder for folder in changed), changed
    assert build_context(project, landing, {}) == before
