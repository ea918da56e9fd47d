"""Each exposure (models/marts/_exposures.yml) names what its reader reads: every dbt model in
``depends_on`` (so that ``dbt build -s +exposure:<name>`` rebuilds every mart the reader
shows, and a publish after it never shows one mart of this build beside one of an older
build), every other relation in its description, and nothing the reader does not read.

What a reader reads is taken from the reader itself, never from a list kept here: the report
is drawn from a published version of the shared warehouse with every SQL statement it runs
recorded; the notebook's statements are the SQL strings of its code cells. DuckDB's own
parser (``json_serialize_sql``) names the relations of each statement, and the manifest maps
a published name (``mcq_agreement_summary_v2``) back to its model and version."""

from __future__ import annotations

import ast
import json

import duckdb
import nbformat
import pytest

from concord_io.project import PROJECT_ROOT
from concord_io.report import build_report, page, sections
from concord_io.serving.publish import CURRENT_DB, SCHEMA, publish

NOTEBOOK = PROJECT_ROOT / "notebooks" / "concord_start.ipynb"


class RecordingConnection:
    """A connection that records every statement run through it, except while ``paused``."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.statements: list[str] = []
        self.paused = False

    def execute(self, sql: str, *args):
        if not self.paused:
            self.statements.append(sql)
        return self.con.execute(sql, *args)

    def close(self) -> None:
        self.con.close()


def relations(statements: list[str]) -> set[str]:
    """Every table or view the statements read, as ``schema.name``: the base tables of
    DuckDB's parse tree (a table function such as ``duckdb_tables()`` is none)."""
    found: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, dict):
            if node.get("type") == "BASE_TABLE":
                found.add(f"{node['schema_name']}.{node['table_name']}")
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    with duckdb.connect() as con:
        for sql in statements:
            (text,) = con.execute("select json_serialize_sql(?)", [sql]).fetchone()
            tree = json.loads(text)
            assert not tree["error"], (sql, tree.get("error_message"))
            walk(tree)
    return found


def exposure_against_reads(manifest: dict, exposure: str, read: set[str]) -> dict[str, list]:
    """What ``exposure`` lacks or holds beyond ``read``: models read but not in depends_on,
    depends_on entries not read, and relations read that are no model and that its
    description does not name."""
    published = {  # a mart's published name (its alias: name_v2 of a version) -> its model
        f"{node['schema']}.{node['alias']}": unique_id
        for unique_id, node in manifest["nodes"].items()
        if node["resource_type"] == "model" and node["schema"] == SCHEMA
    }
    declared = manifest["exposures"][f"exposure.concord.{exposure}"]
    models = {published[r] for r in read if r in published}
    depends_on = set(declared["depends_on"]["nodes"])
    assert models, f"{exposure}: no model read at all; the recording missed the reader"
    return {
        "read, not in depends_on": sorted(models - depends_on),
        "in depends_on, never read": sorted(depends_on - models),
        "read, not a model, not named in the description": sorted(
            r for r in read - published.keys() if r not in declared["description"]
        ),
    }


@pytest.fixture(scope="module")
def manifest(warehouse) -> dict:
    return json.loads((warehouse.parent / "target" / "manifest.json").read_text())


def test_the_report_exposure_names_every_relation_the_report_reads(
    warehouse, manifest, tmp_path, monkeypatch
):
    serving = tmp_path / "serving"
    publish(warehouse, serving, warehouse.parent / "target" / "manifest.json")
    recorded: list[RecordingConnection] = []
    connect_serving = page.connect_serving

    def connect(path):
        recorded.append(RecordingConnection(connect_serving(path)))
        return recorded[-1]

    listing = sections.marts_table

    def marts_table(marts):
        # the page's list of every published mart counts each table there is, whatever
        # it is: a listing, not a dependency
        recorded[-1].paused = True
        try:
            return listing(marts)
        finally:
            recorded[-1].paused = False

    monkeypatch.setattr(page, "connect_serving", connect)
    monkeypatch.setattr(sections, "marts_table", marts_table)
    build_report(serving / CURRENT_DB, tmp_path / "site")
    (connection,) = recorded
    read = relations(connection.statements)
    assert exposure_against_reads(manifest, "concord_report", read) == {
        "read, not in depends_on": [],
        "in depends_on, never read": [],
        "read, not a model, not named in the description": [],
    }


def notebook_statements() -> list[str]:
    """The SQL of the notebook: the string given to each ``.sql(...)`` or ``.execute(...)``
    call of its code cells; a call whose SQL is not a plain string fails, naming its cell."""
    statements = []
    for number, cell in enumerate(nbformat.read(NOTEBOOK, as_version=4).cells, start=1):
        if cell.cell_type != "code":
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("sql", "execute")
            ):
                (sql, *_) = node.args
                assert isinstance(sql, ast.Constant) and isinstance(sql.value, str), (
                    f"{NOTEBOOK.name}, cell {number}: the SQL is not a plain string, so what "
                    "it reads cannot be checked against the exposure"
                )
                statements.append(sql.value)
    return statements


def test_the_notebook_exposure_names_every_relation_the_notebook_reads(manifest):
    read = relations(notebook_statements())
    assert exposure_against_reads(manifest, "concord_start_notebook", read) == {
        "read, not in depends_on": [],
        "in depends_on, never read": [],
        "read, not a model, not named in the description": [],
    }


def test_relations_are_read_from_the_parse_tree_not_the_text():
    statements = [
        'select a from marts."x_v2" join meta.publication using (a) where b = ? '
        "and c in (select c from marts.y) -- marts.not_read",
        "select table_name from duckdb_tables() where schema_name = 'marts'",
    ]
    assert relations(statements) == {"marts.x_v2", "meta.publication", "marts.y"}
