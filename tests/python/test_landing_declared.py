"""Each landed table is declared once: the cross-lingual study's in the sources yml (the
reader's schemas, the staging models' columns and docs/landing.md's tables are made from
it), the probe's as Arrow schemas (concord_common/probe_landing.py), which each probe
staging model's column list is held to (name, order, type)."""

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

STAGING = PROJECT_ROOT / "models" / "staging" / "mcq"
# the SQL type a staging model reads an Arrow type as (dbt's cross-engine type macros)
SQL_TYPES = {
    "string": "dbt.type_string()",
    "int64": "dbt.type_bigint()",
    "int32": "dbt.type_int()",
    "int16": "dbt.type_int()",  # widened: no engine-neutral smallint macro
    "double": "'double'",
    "timestamp[us, tz=UTC]": "'timestamp with time zone'",
    "list<item: int32>": "'integer[]'",
    "list<item: int64>": "'bigint[]'",
    "list<item: double>": "'double[]'",
    "list<item: string>": "'varchar[]'",
}
# docs/landing.md writes Arrow's type names as the pyarrow constructors do
DOC_TYPES = {"double": "float64", "timestamp[us, tz=UTC]": "timestamp[us, UTC]"}
MAPPING = re.compile(r"'(\w+)': (dbt\.type_\w+\(\)|'[^']+')")


def test_docs_landing_tables_are_written_from_the_declaration():
    """docs/landing.md's tables are the generator's output from the sources yml, as it is."""
    result = subprocess.run(
        [sys.executable, str(PROJECT_ROOT / "scripts" / "landing_docs.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_reader_writes_the_declared_tables():
    """The Arrow schemas the reader writes are the sources yml's declaration, column by column
    (a second, independent reading of the yml)."""
    declared = yaml.safe_load(schemas.LANDING_SOURCES.read_text(encoding="utf-8"))
    (source,) = [s for s in declared["sources"] if s["name"] == "mcq_landing"]
    for table in source["tables"]:
        schema = schemas.TABLES[table["name"]]
        assert schema.names == [c["name"] for c in table["columns"]]
        for column, field in zip(table["columns"], schema, strict=True):
            nullable = ((column.get("config") or {}).get("meta") or {}).get("nullable", False)
            assert field.nullable == nullable, (table["name"], field.name)
            assert DOC_TYPES.get(str(field.type), str(field.type)) == column["data_type"]


def staged(path: Path) -> list[tuple[str, str]]:
    """The columns (name, SQL type) a staging model reads from its landed table, in order."""
    text = path.read_text(encoding="utf-8")
    columns = MAPPING.findall(text)
    if "probe_stimulus_columns(" in text:  # the stimulus columns first (macros/probe_stimuli.sql)
        columns = MAPPING.findall((PROJECT_ROOT / "macros" / "probe_stimuli.sql").read_text())
        columns += MAPPING.findall(text)
    if "with_landing_provenance(" in text:
        columns += [(name, SQL_TYPES[str(kind)]) for name, kind, _ in schemas.PROVENANCE]
    return columns


@pytest.mark.parametrize("table", list(schemas.TABLES))
def test_each_mcq_staging_model_reads_its_table_from_the_declaration(table):
    """No column list is written in a staging model of the cross-lingual landing: each reads
    its source table's declared columns (macros/landing.sql: landing_columns)."""
    text = (STAGING / f"stg_mcq__{table}.sql").read_text(encoding="utf-8")
    assert f"landing_columns('mcq_landing', '{table}')" in text
    assert not MAPPING.findall(text)


LANDED = {
    **{
        f"probe/{t}": (s, PROJECT_ROOT / "models" / "staging" / "probe" / f"stg_probe__{t}.sql")
        for t, s in probe_landing.SCHEMAS.items()
    },
}


@pytest.mark.parametrize("table", list(LANDED))
def test_each_staging_model_reads_its_table_as_declared(table):
    schema, model = LANDED[table]
    expected = [(f.name, SQL_TYPES[str(f.type)]) for f in schema]
    assert staged(model) == expected


def test_the_declarations_the_checks_lean_on_exist():
    """Fails when a table this module names goes, so no check goes quiet."""
    assert set(schemas.TABLES) == {"runs", "answers", "option_scores", "items", "quarantine"}
    assert set(probe_landing.SCHEMAS) == {"runs", "stimuli", "scores"}
