"""Each environment variable is declared once (concord_common.settings); every other copy of
its default (dbt's env_var calls, the starter notebook, docs/settings.md) must agree."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from concord_common.settings import SETTINGS, markdown, value
from concord_io.project import PROJECT_ROOT

NAME = re.compile(r"\bCONCORD_[A-Z][A-Z_]*[A-Z]\b")
# env_var('NAME', 'default'), or env_var('NAME', '') | trim or 'default'
ENV_VAR = re.compile(r"env_var\('(CONCORD_\w+)', '([^']*)'\)(?:\s*\|\s*trim\s+or\s+'([^']*)')?")


def tracked_text() -> dict[str, str]:
    names = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    texts = {}
    for name in names:
        path = PROJECT_ROOT / name
        if path.is_file() and path.suffix not in {".parquet", ".duckdb", ".png", ".whl"}:
            try:
                texts[name] = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
    return texts


def test_every_variable_named_anywhere_is_declared_and_every_declared_one_is_used():
    texts = tracked_text()
    named = {m for text in texts.values() for m in NAME.findall(text)}
    assert named - set(SETTINGS) == set(), "declare these in concord_common/settings.py"
    used = {  # dbt's own DBT_PROJECT_DIR too, which NAME does not match
        setting
        for name, text in texts.items()
        if name not in ("concord_common/settings.py", "docs/settings.md")
        for setting in SETTINGS
        if re.search(rf"\b{setting}\b", text)
    }
    assert set(SETTINGS) - used == set(), "declared but read nowhere"


def test_dbt_reads_the_declared_defaults():
    seen = {}
    for file in ("profiles.yml", "dbt_project.yml"):
        for name, default, fallback in ENV_VAR.findall((PROJECT_ROOT / file).read_text()):
            seen.setdefault(name, set()).add(fallback or default)
    assert seen, "no env_var call found: the pattern above needs updating"
    for name, defaults in seen.items():
        assert defaults == {SETTINGS[name].default}, (name, defaults)
        assert SETTINGS[name].parse_state, f"{name} enters dbt's parse: mark parse_state"
    assert {n for n, s in SETTINGS.items() if s.parse_state} == set(seen)


def test_the_notebook_opens_the_declared_serving_file():
    cells = json.loads((PROJECT_ROOT / "notebooks" / "concord_start.ipynb").read_text())
    source = "".join(line for cell in cells["cells"] for line in cell["source"])
    (default,) = re.findall(r'os\.environ\.get\("CONCORD_SERVING", "([^"]+)"\)', source)
    assert default == "../" + SETTINGS["CONCORD_SERVING"].default  # it runs in notebooks/


def test_docs_settings_is_generated_from_the_module():
    assert (PROJECT_ROOT / "docs" / "settings.md").read_text() == markdown(), (
        "run: python -m concord_common.settings --write"
    )


@pytest.mark.parametrize(
    "raw, want", [(None, "warehouse/landing"), ("", "warehouse/landing"), ("  x/y ", "x/y")]
)
def test_value_is_the_variable_or_its_default(monkeypatch, raw, want):
    if raw is None:
        monkeypatch.delenv("CONCORD_LANDING_DIR", raising=False)
    else:
        monkeypatch.setenv("CONCORD_LANDING_DIR", raw)
    assert value("CONCORD_LANDING_DIR") == want


def test_the_memory_limit_reaches_every_connection_to_the_build(monkeypatch, tmp_path):
    """CONCORD_MEMORY_LIMIT, read once (concord_io.connect.apply_build_settings), is the
    limit of dbt's connection (the plugin sets it on the connection dbt-duckdb opens) and of
    Concord's own; a value DuckDB refuses is one line naming the variable."""
    import ast

    import duckdb

    from concord_io.connect import connect_build
    from concord_io.dbt_plugin import Plugin
    from concord_io.errors import ConcordError

    def limit(con) -> str:
        return con.execute("select current_setting('memory_limit')").fetchone()[0]

    monkeypatch.setenv("CONCORD_MEMORY_LIMIT", "123MB")
    database = tmp_path / "build.duckdb"
    duckdb.connect(str(database)).close()
    with connect_build(database) as con:
        assert limit(con) == "117.3 MiB"  # 123 MB in DuckDB's own unit
        # a second connection in the same process (a reader beside dbt) still opens
        with duckdb.connect(str(database), read_only=True) as other:
            assert limit(other) == "117.3 MiB"  # one database instance, one limit
    with duckdb.connect() as con:
        Plugin.configure_connection(object.__new__(Plugin), con)
        assert limit(con) == "117.3 MiB"
    monkeypatch.setenv("CONCORD_MEMORY_LIMIT", "lots")
    with pytest.raises(ConcordError, match="CONCORD_MEMORY_LIMIT=lots"):
        connect_build(database)
    # and no module of concord_io opens DuckDB but through concord_io.connect
    bare = [
        f"{path.relative_to(PROJECT_ROOT)}:{node.lineno}"
        for path in sorted((PROJECT_ROOT / "concord_io").rglob("*.py"))  # the reader too
        if path.name not in ("connect.py", "dbt_plugin.py")  # dbt_plugin: dbt's lock probe
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "duckdb.connect"
    ]
    assert bare == [], "open DuckDB with concord_io.connect.open_duckdb (the build settings)"


def test_the_dbt_project_carries_the_package_version():
    """The version lives in pyproject.toml; dbt_project.yml (which dbt requires to hold one)
    must carry the same, and CHANGELOG.md must describe it."""
    import tomllib

    import yaml

    package = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]["version"]
    project = yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text())["version"]
    assert project == package
    assert f"## {package}" in (PROJECT_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
