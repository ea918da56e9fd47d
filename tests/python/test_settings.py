"""The vars the Python models read: typed by one helper, passed by one macro."""

from __future__ import annotations

import re
import subprocess
import sys

import duckdb
import pytest
import yaml

from concord_common.settings import (
    DBT_VARS,
    VARS,
    dbt_vars,
    project_vars_yaml,
    write_project_vars,
)
from concord_io.errors import ConcordError
from concord_io.project import PROJECT_ROOT, run_dbt

MACRO = PROJECT_ROOT / "macros" / "python_model_vars.sql"


def test_macro_passes_exactly_the_vars_the_helper_types():
    passed = re.findall(r'"(\w+)": var\("(\w+)"\)', MACRO.read_text())
    assert all(key == name for key, name in passed)
    assert sorted(name for name, _ in passed) == sorted(VARS)


def test_dbt_project_vars_are_generated_from_the_settings_module():
    """dbt_project.yml's vars: are DBT_VARS, written by `python -m concord_common.settings
    --write`: a var edited in one place only fails here."""
    text = (PROJECT_ROOT / "dbt_project.yml").read_text()
    assert project_vars_yaml() in text, "run: python -m concord_common.settings --write"
    declared = yaml.safe_load(text)["vars"]
    assert declared == {name: v.default for name, v in DBT_VARS.items()}
    assert set(VARS) <= set(declared)


def test_writing_the_vars_block_changes_nothing_else(tmp_path):
    """The writer replaces the vars block only, and writing twice changes nothing."""
    project = tmp_path / "dbt_project.yml"
    text = (PROJECT_ROOT / "dbt_project.yml").read_text()
    project.write_text(text.replace("  bootstrap_seed: 20250505\n", "  bootstrap_seed: 1\n"))
    assert write_project_vars(project) is True
    assert project.read_text() == text
    assert write_project_vars(project) is False


def test_values_are_typed_whatever_form_they_arrive_in():
    passed = {
        "bootstrap_resamples": "2000",  # --vars '{bootstrap_resamples: "2000"}'
        "bootstrap_confidence": 0.9,
        "bootstrap_seed": 0,
        "mcq_languages": "['en', 'it']",
        "mcq_disagreement_types": "all_same, fa_diverged",
        "mcq_items_dir": " seeds/mcq/items ",
    }
    assert dbt_vars(passed, "bootstrap_resamples", "bootstrap_confidence", "bootstrap_seed") == (
        2000,
        0.9,
        0,
    )
    assert dbt_vars(passed, "mcq_languages", "mcq_disagreement_types", "mcq_items_dir") == (
        ["en", "it"],
        ["all_same", "fa_diverged"],
        "seeds/mcq/items",
    )


@pytest.mark.parametrize(
    "name, value",
    [
        ("bootstrap_resamples", "ten"),
        ("bootstrap_resamples", 2.5),
        ("bootstrap_resamples", True),
        ("bootstrap_confidence", "high"),
        ("bootstrap_confidence", False),
        ("probe_permutations", None),
        ("mcq_languages", 3),
        ("mcq_answers_dir", None),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_naming_the_var(name, value):
    """Types only: ranges (0 resamples, a confidence of 95) are refused once, before the run
    begins, by macros/run_settings.sql (tests/bad_input/cases.yml)."""
    with pytest.raises(ConcordError, match=f"var {name} must be") as error:
        dbt_vars({name: value}, name)
    assert "--vars" in error.value.hint


def test_missing_and_unknown_vars_are_refused():
    with pytest.raises(ConcordError, match="no dbt vars"):
        dbt_vars(None, "bootstrap_seed")
    with pytest.raises(ConcordError, match="'bootstrap_seed' was not passed"):
        dbt_vars({}, "bootstrap_seed")
    with pytest.raises(ConcordError, match="'probe_baseline' is not one"):
        dbt_vars({"probe_baseline": "US"}, "probe_baseline")


@pytest.mark.warehouse
def test_vars_given_on_the_command_line_reach_the_python_models(tmp_path):
    database = tmp_path / "vars.duckdb"
    run_dbt(
        [
            "build",
            "--select",
            "+int_ranking_pair_taus_averaged",
            "--resource-type",
            "model",
            "--vars",
            "{bootstrap_resamples: 50, bootstrap_confidence: 0.8}",
        ],
        PROJECT_ROOT,
        database,
    )
    with duckdb.connect(str(database), read_only=True) as con:
        settings = con.sql(
            "select distinct bootstrap_resamples, bootstrap_confidence"
            " from intermediate.int_ranking_pair_taus_averaged"
        ).fetchall()
    assert settings == [(50, 0.8)]


def test_the_warehouse_imports_no_torch():
    """make build installs no torch: no concord_io or concord_stats module, and no dbt Python
    model, may import it (or transformers) even where the probe's extra is installed."""
    code = """
import importlib, importlib.util, pkgutil, sys
from pathlib import Path
sys.modules["torch"] = None  # any `import torch` now raises ImportError
sys.modules["transformers"] = None
import concord_io, concord_stats
for package in (concord_io, concord_stats):
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
for path in sorted(Path("models").rglob("*.py")):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
print("ok")
"""
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]
