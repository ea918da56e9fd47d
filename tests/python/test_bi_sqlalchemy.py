"""The serving file through SQLAlchemy, the way Superset uses it (the URL of the BI recipes in
docs/serving.md): list schemas and tables with their comments, reflect columns with types
and comments (what Superset does when a dataset is added), and run a query, read-only.
Two dialects: duckdb-engine in the project's environment (it needs SQLAlchemy 2.0.54 or
older), and duckdb-sqlalchemy with the SQLAlchemy that pip installs today, in the BI
environment that `make install` builds (tests/readers/sqlalchemy.txt). Expected names,
types, keys and descriptions come from the build database and dbt's manifest."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pandas as pd
import pytest
import sqlalchemy as sa

from concord_io.connect import sqlalchemy_url
from concord_io.project import PROJECT_ROOT
from concord_io.serving.publish import CURRENT_DB, publish

MART = "mcq_agreement_summary_v2"
BI_VENV = Path(sys.prefix) / "readers" / "sqlalchemy"
BI_PINS = PROJECT_ROOT / "tests" / "readers" / "sqlalchemy.txt"


@pytest.fixture(scope="module")
def serving(warehouse, tmp_path_factory) -> Path:
    serving = tmp_path_factory.mktemp("serving")
    publish(warehouse, serving, warehouse.parent / "target" / "manifest.json")
    return serving


@pytest.fixture(scope="module")
def engine(serving):
    engine = sa.create_engine(sqlalchemy_url(serving / CURRENT_DB))
    yield engine
    engine.dispose()


@pytest.fixture(scope="module")
def described(warehouse) -> dict:
    """The mart's description and column descriptions, from dbt's manifest."""
    manifest = json.loads((warehouse.parent / "target" / "manifest.json").read_text())
    (node,) = [
        n
        for n in manifest["nodes"].values()
        if n["resource_type"] == "model" and (n.get("alias") or n["name"]) == MART
    ]
    return node


def build_columns(warehouse) -> list[tuple[str, str]]:
    with duckdb.connect(str(warehouse), read_only=True) as con:
        return con.execute(
            "select column_name, data_type from duckdb_columns() "
            "where schema_name = 'marts' and table_name = ? order by column_index",
            [MART],
        ).fetchall()


def test_lists_schemas_tables_and_table_comments(engine, warehouse, described):
    with duckdb.connect(str(warehouse), read_only=True) as con:
        marts = {
            n
            for (n,) in con.execute(
                "select table_name from information_schema.tables where table_schema = 'marts'"
            ).fetchall()
        }
    with engine.connect() as connection:
        inspector = sa.inspect(connection)
        # duckdb-engine lists schemas qualified by the catalog, which DuckDB names after the
        # version file the symlink points to ("concord-<version>".marts); plain `marts` works
        listed = inspector.get_schema_names()
        assert {"marts", "meta"} <= {name.rsplit(".", 1)[-1] for name in listed}
        assert set(inspector.get_table_names(schema="marts")) == marts
        comment = inspector.get_table_comment(MART, schema="marts")["text"]
    assert comment == described["description"].strip()


# duckdb-engine 0.17 warns that it reflects no indices (its limit, stated in docs/serving.md)
@pytest.mark.filterwarnings("ignore:duckdb-engine doesn't yet support reflection on indices")
def test_reflects_columns_with_types_and_comments(engine, warehouse, described):
    with engine.connect() as connection:
        columns = sa.inspect(connection).get_columns(MART, schema="marts")
        frame = pd.read_sql_table(MART, connection, schema="marts")
    assert [c["name"] for c in columns] == [name for name, _ in build_columns(warehouse)]
    for column in columns:
        want = (described["columns"].get(column["name"], {}).get("description") or "").strip()
        assert (column.get("comment") or "") == want, column["name"]
    assert len(frame) == 8 and list(frame.columns) == [c["name"] for c in columns]
    # the contract's not-null columns reach the BI tool (duckdb-engine 0.17 reflects no
    # keys: a tool reads them from information_schema.table_constraints, test_serving.py)
    nullable = {c["name"]: c["nullable"] for c in columns}
    assert nullable["model"] is False and nullable["full_agreement_pct"] is True


def test_runs_a_query_and_cannot_write(engine, warehouse):
    query = f"select model, variant, full_agreement_pct from marts.{MART} order by model, variant"
    with engine.connect() as connection:
        got = pd.read_sql(sa.text(query), connection)
        with pytest.raises(sa.exc.DBAPIError):
            connection.execute(sa.text("create table marts.superset_scratch (a int)"))
    with duckdb.connect(str(warehouse), read_only=True) as con:
        want = con.execute(query).df()
    pd.testing.assert_frame_equal(got, want)


def pinned(package: str) -> str:
    for line in BI_PINS.read_text().splitlines():
        if line.lower().startswith(package.lower() + "=="):
            return line.split("==")[1].strip()
    raise AssertionError(f"{BI_PINS}: no pin for {package}")


def test_todays_sqlalchemy_reflects_columns_keys_and_comments(serving, warehouse, described):
    """duckdb-sqlalchemy on the SQLAlchemy that pip installs today: what a Superset or pandas
    user gets without pinning anything (duckdb-engine 0.17 fails there: pg_collation)."""
    python = BI_VENV / "bin" / "python"
    assert python.exists(), f"{python}: no BI reader venv; run `make install`"
    script = textwrap.dedent(
        """
        import json, sys
        import duckdb, pandas as pd, sqlalchemy as sa
        engine = sa.create_engine(sys.argv[1])
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            columns = inspector.get_columns(sys.argv[2], schema="marts")
            frame = pd.read_sql_table(sys.argv[2], connection, schema="marts")
            out = {
                "versions": [sa.__version__, duckdb.__version__],
                "tables": inspector.get_table_names(schema="marts"),
                "columns": [
                    [c["name"], str(c["type"]), c["nullable"], c.get("comment") or ""]
                    for c in columns
                ],
                "primary_key": inspector.get_pk_constraint(sys.argv[2], schema="marts")[
                    "constrained_columns"
                ],
                "comment": inspector.get_table_comment(sys.argv[2], schema="marts")["text"],
                "shape": list(frame.shape),
            }
        print(json.dumps(out))
        """
    )
    result = subprocess.run(
        [str(python), "-c", script, sqlalchemy_url(serving / CURRENT_DB), MART],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    got = json.loads(result.stdout)
    duckdb_14 = (BI_PINS.parent / "duckdb.txt").read_text().split("==")[-1].strip()
    assert got["versions"] == [pinned("SQLAlchemy"), duckdb_14]
    with duckdb.connect(str(warehouse), read_only=True) as con:
        marts = {
            n
            for (n,) in con.execute(
                "select table_name from information_schema.tables where table_schema = 'marts'"
            ).fetchall()
        }
        not_null = {
            c
            for (c,) in con.execute(
                "select column_name from duckdb_columns() where schema_name = 'marts' "
                "and table_name = ? and not is_nullable",
                [MART],
            ).fetchall()
        }
    assert set(got["tables"]) == marts
    assert [[name, kind] for name, kind, *_ in got["columns"]] == [
        [name, kind] for name, kind in build_columns(warehouse)
    ]
    # the contract's keys and not-null columns reach the tool
    assert got["primary_key"] == described["primary_key"] == ["run_id", "task"]
    assert {name for name, _, nullable, _ in got["columns"] if not nullable} == not_null
    for name, _, _, comment in got["columns"]:
        want = (described["columns"].get(name, {}).get("description") or "").strip()
        assert comment == want, name
    assert got["comment"] == described["description"].strip()
    assert got["shape"] == [8, len(got["columns"])]
