"""Each landed table is declared once, as an Arrow schema (concord_io/landing/schemas.py for
the cross-lingual study, concord_common/probe_landing.py for the probe), and the other places
that state its columns are held to it: the tables of docs/landing.md (name, type, null) and
the column list each staging model reads (name, order, type)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from concord_common import probe_landing
from concord_io.landing import schemas
from concord_io.project import PROJECT_ROOT

STAGING = PROJECT_ROOT / "models" / "staging" / "mcq"
# columns a staging model leaves in the landing on purpose, with why
NOT_STAGED = {
    ("mcq/runs", "task_hashes"): "the harness's hash of each task: provenance for a reader of the "
    "landing, no model reads it (a map, typed differently on each engine)",
}
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
ROW = re.compile(r"^\|\s*(`[^|]+`)\s*\|\s*([^|]*?)\s*\|\s*(yes|no)\s*\|", re.MULTILINE)
MAPPING = re.compile(r"'(\w+)': (dbt\.type_\w+\(\)|'[^']+')")


def documented(table: str) -> list[tuple[str, str, bool]]:
    """The rows of docs/landing.md's table of ``table``: (column, type, nullable); a row
    that names several columns gives each the type an earlier table gave it ("as in
    answers")."""
    text = (PROJECT_ROOT / "docs" / "landing.md").read_text(encoding="utf-8")
    section = text.split(f"\n### {table}\n", 1)[1].split("\n#", 1)[0]
    rows = []
    for names, kind, null in ROW.findall(section):
        for name in re.findall(r"`(\w+)`", names):
            rows.append((name, kind.strip(), null == "yes"))
    return rows


@pytest.mark.parametrize("table", list(schemas.TABLES))
def test_docs_landing_states_each_table_as_declared(table):
    schema = schemas.TABLES[table]
    known = {f.name: DOC_TYPES.get(str(f.type), str(f.type)) for s in schemas.TABLES.values()
             for f in s}  # fmt: skip
    rows = documented(table)
    assert [name for name, _, _ in rows] == schema.names
    for (name, kind, null), field in zip(rows, schema, strict=True):
        assert null == field.nullable, (table, name)
        if kind and not kind.startswith("as in"):
            assert kind.replace("`", "") == known[name], (table, name, kind)


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


LANDED = {
    **{f"mcq/{t}": (s, STAGING / f"stg_mcq__{t}.sql") for t, s in schemas.TABLES.items()},
    **{
        f"probe/{t}": (s, PROJECT_ROOT / "models" / "staging" / "probe" / f"stg_probe__{t}.sql")
        for t, s in probe_landing.SCHEMAS.items()
    },
}


@pytest.mark.parametrize("table", list(LANDED))
def test_each_staging_model_reads_its_table_as_declared(table):
    schema, model = LANDED[table]
    expected = [
        (f.name, SQL_TYPES[str(f.type)]) for f in schema if (table, f.name) not in NOT_STAGED
    ]
    assert staged(model) == expected


def test_the_declarations_the_checks_lean_on_exist():
    """Fails when a table or a column this module names goes, so no check goes quiet."""
    assert set(schemas.TABLES) == {"runs", "answers", "option_scores", "items", "quarantine"}
    for table, column in NOT_STAGED:
        schema, model = LANDED[table]
        assert column in schema.names and f"'{column}'" not in model.read_text()
    assert set(probe_landing.SCHEMAS) == {"runs", "stimuli", "scores"}
