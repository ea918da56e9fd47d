"""Each landed table is declared once, in the sources yml of its staging folder (the
cross-lingual study's ``mcq_landing``, the probe's ``probe_landing``): the writers' Arrow
schemas, the staging models' columns and docs/landing.md's tables are made from it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from concord_common import probe_landing
from concord_io.landing import schemas
from concord_io.project import PROJECT_ROOT

# a declaration writes Arrow's type names as the pyarrow constructors do
DOC_TYPES = {
    "double": "float64",
    "timestamp[us, tz=UTC]": "timestamp[us, UTC]",
    "list<item: int32>": "list<int32>",
    "list<item: int64>": "list<int64>",
    "list<item: double>": "list<float64>",
    "list<item: string>": "list<string>",
}
MAPPING = re.compile(r"'(\w+)': (dbt\.type_\w+\(\)|'[^']+')")


def test_docs_landing_tables_are_written_from_the_declaration():
    """docs/landing.md's tables are the generator's output from the sources yml, as it is."""
    result = subprocess.run(
        [sys.executable, str(PROJECT_ROOT / "scripts" / "landing_docs.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


#: each landing's declaration: its file, its source and the schemas its writer writes
DECLARED = {
    "mcq_landing": (
        schemas.LANDING_SOURCES,
        schemas.TABLES,
        PROJECT_ROOT / "models" / "staging" / "mcq" / "stg_mcq__{}.sql",
    ),
    "probe_landing": (
        PROJECT_ROOT / probe_landing.PROBE_DECLARATION,
        probe_landing.SCHEMAS,
        PROJECT_ROOT / "models" / "staging" / "probe" / "stg_probe__{}.sql",
    ),
}


@pytest.mark.parametrize("source_name", list(DECLARED))
def test_the_writers_write_the_declared_tables(source_name):
    """The Arrow schemas the reader and the probe write are their sources yml's declaration,
    column by column (a second, independent reading of the yml; a column may be null where
    it, or else its source, says so)."""
    path, tables, _ = DECLARED[source_name]
    declared = yaml.safe_load(path.read_text(encoding="utf-8"))
    (source,) = [s for s in declared["sources"] if s["name"] == source_name]
    default = ((source.get("config") or {}).get("meta") or {}).get("nullable", False)
    assert [t["name"] for t in source["tables"]] == list(tables)
    for table in source["tables"]:
        schema = tables[table["name"]]
        assert schema.names == [c["name"] for c in table["columns"]]
        for column, field in zip(table["columns"], schema, strict=True):
            meta = (column.get("config") or {}).get("meta") or {}
            assert field.nullable == meta.get("nullable", default), (table["name"], field.name)
            assert DOC_TYPES.get(str(field.type), str(field.type)) == column["data_type"]


@pytest.mark.parametrize(
    ("source_name", "table"), [(s, t) for s, (_, tables, _) in DECLARED.items() for t in tables]
)
def test_each_staging_model_reads_its_table_from_the_declaration(source_name, table):
    """No column list is written in a landing's staging model: each reads its source
    table's declared columns (macros/landing.sql: landing_columns)."""
    text = Path(str(DECLARED[source_name][2]).format(table)).read_text(encoding="utf-8")
    assert f"landing_columns('{source_name}', '{table}')" in text
    assert not MAPPING.findall(text)


def test_the_declarations_the_checks_lean_on_exist():
    """Fails when a table this module names goes, so no check goes quiet."""
    assert set(schemas.TABLES) == {"runs", "answers", "option_scores", "items", "quarantine"}
    assert set(probe_landing.SCHEMAS) == {"runs", "stimuli", "scores"}
