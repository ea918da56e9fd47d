"""The published serving file: what publish writes, that readers and builds never block each
other, that DuckDB 1.4 and SQLAlchemy (duckdb-engine, what Superset uses) can read it, and
that the documented reader connection is locked down. Expected values come from the build
database and dbt's manifest, read independently of concord_io.serving.publish."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from concord_io.connect import READER_INIT_SQL, READER_SETTINGS, connect_serving, sqlalchemy_url
from concord_io.project import PROJECT_ROOT, run_dbt
from concord_io.serving.publish import (
    CURRENT_DB,
    CURRENT_PARQUET,
    PublishError,
    publish,
    read_record,
)

# the pin, in the requirements file that make install reads, and the venv it installs into
DUCKDB_14 = (PROJECT_ROOT / "tests" / "readers" / "duckdb.txt").read_text().split("==")[-1].strip()
DUCKDB_14_VENV = Path(sys.prefix) / "readers" / "duckdb"


def manifest_of(database: Path) -> Path:
    return database.parent / "target" / "manifest.json"


def build_marts(database: Path) -> dict[str, int]:
    """Every table in schema marts of the build database with its row count."""
    with duckdb.connect(str(database), read_only=True) as con:
        names = [
            n
            for (n,) in con.execute(
                "select table_name from information_schema.tables where table_schema = 'marts'"
            ).fetchall()
        ]
        return {n: con.execute(f'select count(*) from marts."{n}"').fetchone()[0] for n in names}


@pytest.fixture(scope="module")
def served(warehouse, tmp_path_factory):
    serving = tmp_path_factory.mktemp("serving")
    result = publish(warehouse, serving, manifest_of(warehouse))
    return serving, result


def mart_constraints(con) -> set[tuple]:
    return {
        (table, kind, tuple(columns))
        for table, kind, columns in con.execute(
            "select table_name, constraint_type, constraint_column_names "
            "from duckdb_constraints() where schema_name = 'marts'"
        ).fetchall()
    }


def no_wal(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.wal"))


def test_publish_copies_every_mart_with_its_descriptions(warehouse, served):
    serving, result = served
    expected = build_marts(warehouse)
    assert expected, "the build has marts"
    link = serving / CURRENT_DB
    assert link.is_symlink() and not Path(os.readlink(link)).is_absolute()
    assert link.resolve() == result.database.resolve()
    nodes = json.loads(manifest_of(warehouse).read_text())["nodes"].values()
    docs = {n["name"]: n for n in nodes if n["resource_type"] == "model" and n["schema"] == "marts"}
    with duckdb.connect(str(link), read_only=True) as con:
        got = {
            n: con.execute(f'select count(*) from marts."{n}"').fetchone()[0]
            for (n,) in con.execute(
                "select table_name from duckdb_tables() where schema_name = 'marts'"
            ).fetchall()
        }
        assert got == expected
        storage = con.execute(
            "select tags['storage_version'] from duckdb_databases() "
            "where database_name = current_database()"
        ).fetchone()[0]
        assert storage.startswith("v1.4.0")
        for name in expected:
            if name not in docs:
                continue
            comment = con.execute(
                "select comment from duckdb_tables() where schema_name = 'marts' and "
                "table_name = ?",
                [name],
            ).fetchone()[0]
            assert comment == docs[name]["description"].strip()
            columns = dict(
                con.execute(
                    "select column_name, comment from duckdb_columns() "
                    "where schema_name = 'marts' and table_name = ?",
                    [name],
                ).fetchall()
            )
            for column, meta in docs[name]["columns"].items():
                assert columns[column] == meta["description"].strip(), (name, column)
        # the mart no model describes (an on-run-end hook writes it) carries its own
        # description and one for every column
        failures = con.execute(
            "select c.column_name, c.comment, t.comment from duckdb_columns() c "
            "join duckdb_tables() t using (schema_name, table_name) "
            "where schema_name = 'marts' and table_name = 'dq_test_failures'"
        ).fetchall()
        assert len(failures) == 7
        assert all(column_text and table_text for _, column_text, table_text in failures)
        # its key, where BI tools look for one (a test is listed once per build)
        assert con.execute(
            "select constraint_column_names from duckdb_constraints() where schema_name = "
            "'marts' and table_name = 'dq_test_failures' and constraint_type = 'PRIMARY KEY'"
        ).fetchall() == [(["test_name"],)]
        # the contracts' constraints travel with the marts: keys and not-null columns
        served_constraints = mart_constraints(con)
        # where JDBC/ODBC and BI tools look for keys
        standard = con.execute(
            "select constraint_type from information_schema.table_constraints "
            "where table_schema = 'marts' and table_name = 'ranking_pair_kendall'"
        ).fetchall()
        assert ("PRIMARY KEY",) in standard
    with duckdb.connect(str(warehouse), read_only=True) as con:
        built_constraints = mart_constraints(con)
        views = {
            n
            for (n,) in con.execute(
                "select view_name from duckdb_views() where schema_name = 'marts'"
            ).fetchall()
        }
    # the facts are views in the build (one copy of the answers): published as tables with
    # their contract's not-null columns, read here from the manifest
    contract_not_null = {
        (table, "NOT NULL", (column,))
        for node in nodes
        if node["resource_type"] == "model"
        and (table := node.get("alias") or node["name"]) in views
        for column, meta in node["columns"].items()
        if any(c["type"] == "not_null" for c in meta.get("constraints") or [])
    }
    assert {"fct_mcq_answers", "fct_mcq_item_agreement_v2"} <= views
    assert ("fct_mcq_answers", "NOT NULL", ("source_row",)) in contract_not_null
    assert served_constraints == built_constraints | contract_not_null
    assert ("ranking_pair_kendall", "PRIMARY KEY", ("rater_id", "other_rater_id")) in (
        served_constraints
    )
    assert no_wal(serving) == []


def test_parquet_exports_and_catalogue(warehouse, served):
    serving, _ = served
    expected = build_marts(warehouse)
    folder = serving / CURRENT_PARQUET
    assert folder.is_symlink() and folder.is_dir()
    catalogue = json.loads((folder / "catalogue.json").read_text())
    assert {t["name"] for t in catalogue["tables"]} == set(expected)
    assert catalogue["built_at"] and catalogue["published_at"]
    with duckdb.connect(str(warehouse), read_only=True) as con:
        for table in catalogue["tables"]:
            parquet = pq.read_table(folder / table["file"])
            assert parquet.num_rows == table["row_count"] == expected[table["name"]]
            types = con.execute(
                "select column_name, data_type from duckdb_columns() "
                "where schema_name = 'marts' and table_name = ? order by column_index",
                [table["name"]],
            ).fetchall()
            assert [(c["name"], c["type"]) for c in table["columns"]] == types
            assert parquet.column_names == [c for c, _ in types]


def test_the_publication_records_the_bytes_of_the_build_it_copied(warehouse, served):
    """meta.publication says which build file the version was copied from (its size and
    SHA-256; no write-ahead log beside it), so that status can compare the build with it."""
    serving, _ = served
    with duckdb.connect(str(serving / CURRENT_DB), read_only=True) as con:
        recorded = con.execute(
            "select build_size, build_sha256, build_wal_sha256 from meta.publication"
        ).fetchall()
    expected = (warehouse.stat().st_size, hashlib.sha256(warehouse.read_bytes()).hexdigest())
    assert recorded == [(*expected, None)]


def test_failed_or_unsafe_publish_changes_nothing(tmp_path, served, warehouse):
    serving, result = served
    before = os.readlink(serving / CURRENT_DB)
    listing = sorted(p.name for p in (serving / "versions").iterdir())
    empty = tmp_path / "empty.duckdb"
    duckdb.connect(str(empty)).close()
    with pytest.raises(PublishError, match="no tables"):
        publish(empty, serving, skip_quality_gate=True)
    stray = serving / (CURRENT_DB + ".wal")
    stray.write_bytes(b"x")
    try:
        with pytest.raises(PublishError, match=r"\.wal"):
            publish(warehouse, serving)
    finally:
        stray.unlink()
    assert os.readlink(serving / CURRENT_DB) == before
    assert sorted(p.name for p in (serving / "versions").iterdir()) == listing
    occupied = tmp_path / "occupied"
    (occupied / CURRENT_PARQUET).mkdir(parents=True)
    with pytest.raises(PublishError, match="real file or folder"):
        publish(warehouse, occupied)
    assert not (occupied / CURRENT_DB).exists()
    assert list((occupied / "versions").iterdir()) == []


def test_a_publish_told_when_writes_first_and_seals_only_on_the_word_and_the_gate(
    warehouse, tmp_path
):
    """``told`` (``--when-told``, how `concord build` publishes while its checkpoint runs):
    the version is written before the word, then sealed only on it and only when the
    quality record is there by then; otherwise nothing is left and nothing changes."""
    from concord_io.quality import QualityGateError, build_identity, write_quality_record

    build = tmp_path / "build.duckdb"  # a copy: no quality record beside it yet
    shutil.copyfile(warehouse, build)
    serving = tmp_path / "serving"
    seen: list[list[str]] = []

    def written_then(word: bool, checked: bool = False):
        def told() -> bool:
            seen.append(sorted(p.name for p in (serving / "versions").iterdir()))
            if checked:  # the checkpoint passed meanwhile
                write_quality_record(build, build_identity(build), 1)
            return word

        return told

    assert publish(build, serving, told=written_then(False)) is None
    assert seen[-1][0].endswith(".partial")  # written before the word
    assert list((serving / "versions").iterdir()) == [] and not (serving / CURRENT_DB).exists()
    with pytest.raises(QualityGateError, match="no passing quality record"):
        publish(build, serving, told=written_then(True))
    assert list((serving / "versions").iterdir()) == [] and read_record(serving) == []
    result = publish(build, serving, told=written_then(True, checked=True))
    assert result is not None and read_record(serving) == [result.version]
    assert os.readlink(serving / "current") == f"versions/{result.version}"
    with duckdb.connect(str(result.database), read_only=True) as con:
        assert con.execute("select quality from meta.publication").fetchone() == ("passed",)


def test_a_publish_ended_while_it_waits_for_the_word_leaves_nothing(warehouse, tmp_path):
    """`concord build` ends the publish it started ahead when its checkpoint fails: the
    version it wrote is removed, nothing was published."""
    serving = tmp_path / "serving"
    command = [sys.executable, "-m", "concord_io.serving.publish", "--database",
               str(warehouse), "--serving-dir", str(serving), "--when-told"]  # fmt: skip
    process = subprocess.Popen(command, stdin=subprocess.PIPE, cwd=PROJECT_ROOT)
    deadline = time.monotonic() + 60
    while not any((serving / "versions").glob("*.partial/parquet/catalogue.json")):
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.2)  # waiting for the word now
    process.terminate()
    assert process.wait(timeout=60) == 128 + signal.SIGTERM
    assert list((serving / "versions").iterdir()) == []
    assert not (serving / CURRENT_DB).exists() and not (serving / "current").exists()


def test_keeps_last_versions_and_a_reader_keeps_its_view(warehouse, tmp_path):
    serving = tmp_path / "serving"
    first = publish(warehouse, serving, manifest_of(warehouse), keep=3)
    reader = connect_serving(serving / CURRENT_DB)
    try:
        expected = build_marts(warehouse)
        later = [publish(warehouse, serving, manifest_of(warehouse), keep=3) for _ in range(3)]
        versions = serving / "versions"
        # one folder per published version, database and Parquet together
        assert sorted(p.name for p in versions.iterdir()) == [r.version for r in later]
        assert read_record(serving) == [r.version for r in later]
        for result in later:
            assert result.database.is_file() and (result.parquet_dir / "catalogue.json").is_file()
        assert not first.database.exists()  # removed, but still open in the reader
        (version,) = reader.execute("select version from meta.publication").fetchone()
        assert version == first.version
        for name, n in expected.items():
            assert reader.execute(f'select count(*) from marts."{name}"').fetchone()[0] == n
    finally:
        reader.close()
    assert no_wal(serving) == []


READER = textwrap.dedent(
    """
    import json, sys
    from concord_io.connect import connect_serving
    path = sys.argv[1]
    con = connect_serving(path)
    def state(c):
        version = c.execute("select version from meta.publication").fetchone()[0]
        rows = c.execute("select count(*) from marts.mcq_agreement_summary_v2").fetchone()[0]
        return {"version": version, "rows": rows}
    print(json.dumps(state(con)), flush=True)
    sys.stdin.readline()
    print(json.dumps(state(con)), flush=True)
    con.close()
    print(json.dumps(state(connect_serving(path))), flush=True)
    """
)


def test_reader_holds_serving_file_while_build_and_publish_run(warehouse, tmp_path):
    build = tmp_path / "build" / "concord.duckdb"
    build.parent.mkdir()
    shutil.copy2(warehouse, build)
    shutil.copytree(warehouse.parent / "target", build.parent / "target")
    serving = tmp_path / "serving"
    first = publish(build, serving, manifest_of(build), skip_quality_gate=True)
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(serving / CURRENT_DB)],
        cwd=PROJECT_ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        before = json.loads(reader.stdout.readline())
        assert before["version"] == first.version
        # the reader holds the serving file open while dbt writes the build file ...
        run_dbt(["build", "--select", "mcq_agreement_summary"], PROJECT_ROOT, build, artifacts=True)
        # ... and while the new version is published
        second = publish(build, serving, manifest_of(build), skip_quality_gate=True)
        reader.stdin.write("\n")
        reader.stdin.flush()
        during = json.loads(reader.stdout.readline())
        after = json.loads(reader.stdout.readline())
    finally:
        reader.stdin.close()
        assert reader.wait(timeout=60) == 0
    assert during == before  # its view did not change under it
    assert after["version"] == second.version != first.version  # reconnecting sees the new one
    assert after["rows"] == before["rows"]
    assert no_wal(serving) == []


def duckdb_14_python() -> Path:
    """The venv with DuckDB 1.4 (what BI drivers bundle) that `make install` makes."""
    python = DUCKDB_14_VENV / "bin" / "python"
    assert python.exists(), f"{python}: no DuckDB {DUCKDB_14} reader venv; run `make install`"
    return python


def test_duckdb_14_opens_the_serving_file_and_reads_every_mart(warehouse, served):
    serving, _ = served
    script = textwrap.dedent(
        """
        import json, sys, duckdb
        con = duckdb.connect(sys.argv[1], read_only=True)
        out = {"version": duckdb.__version__, "tables": {}}
        for (name,) in con.execute(
            "select table_name from duckdb_tables() where schema_name = 'marts'"
        ).fetchall():
            rows = con.execute(f'select * from marts."{name}"').fetchall()
            out["tables"][name] = len(rows)
        out["views"] = {
            name: len(con.execute(f'select * from marts."{name}"').fetchall())
            for (name,) in con.execute(
                "select view_name from duckdb_views() where schema_name = 'marts'"
            ).fetchall()
        }
        print(json.dumps(out))
        """
    )
    python = duckdb_14_python()
    result = subprocess.run(
        [str(python), "-c", script, str(serving / CURRENT_DB)],
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(result.stdout)
    assert got["version"] == DUCKDB_14
    assert got["tables"] == build_marts(warehouse)
    # each versioned mart's unversioned name reads its latest version there too
    assert got["views"]["mcq_agreement_summary"] == got["tables"]["mcq_agreement_summary_v2"]


def test_each_versioned_mart_has_its_unversioned_name_at_its_latest_version(served):
    """A BI tool's saved dataset names the mart without its version: a view of the latest
    version (its name as the manifest gives the model, its description saying so), whatever
    catalog name a reader attaches the file under; exports and counts see each mart once."""
    from concord_io.serving.export import published_marts

    serving, _ = served
    with duckdb.connect(":memory:") as con:
        con.execute(f"attach '{serving / CURRENT_DB}' as published (read_only)")
        con.execute("use published")
        views = dict(
            con.execute(
                "select view_name, comment from duckdb_views() where schema_name = 'marts'"
            ).fetchall()
        )
        assert set(views) == {
            name.removesuffix("_v2") for name in published_marts(con) if name.endswith("_v2")
        }
        assert views["mcq_agreement_summary"].startswith(
            "mcq_agreement_summary at its latest version, mcq_agreement_summary_v2: save this"
        )
        for view in views:
            assert con.execute(f"select * from marts.{view} except all "
                               f"select * from marts.{view}_v2").fetchall() == []  # fmt: skip
            assert view not in published_marts(con)


def test_sqlalchemy_duckdb_engine_connects_read_only(served, warehouse):
    serving, _ = served
    script = textwrap.dedent(
        """
        import json, sys, warnings
        import pandas as pd
        import sqlalchemy as sa
        warnings.simplefilter("ignore")  # duckdb-engine: no index reflection
        engine = sa.create_engine(sys.argv[1])
        with engine.connect() as c:
            rows = c.execute(sa.text(
                "select model, full_agreement_pct from marts.mcq_agreement_summary_v2 "
                "order by model, variant"
            )).fetchall()
            inspector = sa.inspect(c)
            tables = inspector.get_table_names(schema="marts")
            # what a BI tool does when it lists a table's fields
            columns = {
                t: [col["name"] for col in inspector.get_columns(t, schema="marts")]
                for t in tables
            }
            frame = pd.read_sql_table("mcq_agreement_summary_v2", c, schema="marts")
            try:
                c.execute(sa.text("create table marts.x (a int)"))
                wrote = True
            except Exception:
                wrote = False
        print(json.dumps({
            "rows": [list(r) for r in rows], "tables": tables, "wrote": wrote,
            "columns": columns, "frame": [list(frame.columns), len(frame)],
        }))
        """
    )
    url = sqlalchemy_url(serving / CURRENT_DB)
    assert str(serving / CURRENT_DB) in url  # the symlink, so a BI tool follows new versions
    out = subprocess.run(
        [sys.executable, "-c", script, url], capture_output=True, text=True, check=True
    )
    got = json.loads(out.stdout)
    with duckdb.connect(str(warehouse), read_only=True) as con:  # the build file, not publish's
        expected = con.execute(
            "select model, full_agreement_pct from marts.mcq_agreement_summary_v2 "
            "order by model, variant"
        ).fetchall()
    assert [tuple(r) for r in got["rows"]] == expected
    assert set(got["tables"]) == set(build_marts(warehouse))
    with duckdb.connect(str(warehouse), read_only=True) as con:
        for table, names in got["columns"].items():
            assert names == [
                c
                for (c,) in con.execute(
                    "select column_name from duckdb_columns() where schema_name = 'marts' "
                    "and table_name = ? order by column_index",
                    [table],
                ).fetchall()
            ], table
    assert got["frame"] == [got["columns"]["mcq_agreement_summary_v2"], len(expected)]
    assert got["wrote"] is False


def test_reader_cannot_write_read_files_attach_or_unlock(served, tmp_path):
    serving, _ = served
    outside = tmp_path / "outside.csv"
    outside.write_text("a\n1\n")
    other = tmp_path / "other.duckdb"
    duckdb.connect(str(other)).close()
    target = tmp_path / "copied.csv"
    con = connect_serving(serving / CURRENT_DB)
    try:
        settings = dict(
            con.execute(
                "select name, value from duckdb_settings() where name in "
                "('access_mode', " + ", ".join(f"'{k}'" for k in READER_SETTINGS) + ")"
            ).fetchall()
        )
        assert settings == {
            "access_mode": "read_only",
            **{k: str(v).lower() for k, v in READER_SETTINGS.items()},
        }
        refused = [
            "create table marts.x (a int)",
            "delete from marts.mcq_agreement_summary_v2",
            f"copy marts.mcq_agreement_summary_v2 to '{target}'",
            f"copy (select 1) to '{serving}/parquet/x.csv'",
            f"select * from read_csv('{outside}')",
            f"select * from '{outside}'",
            f"attach '{other}' as other",
            f"export database '{tmp_path}/export'",
            "set enable_external_access = true",
            "set lock_configuration = false",
            "reset lock_configuration",
            "set autoload_known_extensions = true",
            "set allowed_directories = ['/']",
            "install httpfs",
            "load httpfs",
        ]
        for statement in refused:
            with pytest.raises(duckdb.Error):
                con.execute(statement).fetchall()
        assert not target.exists()
        assert not (serving / "parquet" / "x.csv").exists()
        assert con.execute("select count(*) from marts.mcq_agreement_summary_v2").fetchone()[0] > 0
    finally:
        con.close()


def test_reader_settings_as_sql_must_lock_last(served):
    """Tools that take an init script get READER_INIT_SQL; the lock has to come last."""
    serving, _ = served
    path = str((serving / CURRENT_DB).resolve())
    with duckdb.connect(path, read_only=True) as con:
        for statement in READER_INIT_SQL.splitlines():
            con.execute(statement)
        with pytest.raises(duckdb.Error):
            con.execute("set enable_external_access = true")
        assert con.execute("select count(*) from marts.mcq_agreement_summary_v2").fetchone()[0] > 0
    with duckdb.connect(path, read_only=True) as con:
        con.execute("set lock_configuration = true")
        with pytest.raises(duckdb.Error, match="locked"):
            con.execute("set enable_external_access = false")


def test_make_build_publishes_only_after_the_build_and_its_checks():
    """make build is `concord build`, whose stages run dbt build, the quality checkpoint,
    publish and the report in that order (and stop at the first that fails:
    tests/python/test_cli.py)."""
    from concord_io.cli import build_stages

    dry = subprocess.run(
        ["make", "-n", "build"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "concord build" in dry
    commands = [
        " ".join(step)
        for stage in build_stages(PROJECT_ROOT / "warehouse" / "concord.duckdb")
        for step in stage.steps
        if isinstance(step, list)
    ]

    def first(fragment: str) -> int:
        return next(i for i, line in enumerate(commands) if fragment in line)

    build = first(" build --profiles-dir")
    published = first("concord_io.serving.publish")
    report = first("concord_io.report")
    assert build < published < report
    quality = first("concord_io.quality")
    assert build < quality < published


@pytest.mark.warehouse
def test_plain_dbt_creates_the_database_folder(tmp_path):
    """A fresh clone has no warehouse/: plain dbt (no make) creates the build file's folder
    (concord_io.dbt_plugin, from profiles.yml) instead of failing to open the file."""
    from concord_io.project import invoke_dbt

    database = tmp_path / "new" / "nested" / "concord.duckdb"
    flags = ["--profiles-dir", ".", "--project-dir", ".", "--target-path", str(tmp_path / "t")]
    result = invoke_dbt(
        ["run", "--select", "stg_rater__categories", *flags, "--log-path", str(tmp_path / "l")],
        {"CONCORD_DB_PATH": str(database), "CONCORD_LANDING_DIR": str(tmp_path / "landing")},
        PROJECT_ROOT,
    )
    assert result.returncode == 0, result.stdout[-3000:]
    with duckdb.connect(str(database), read_only=True) as con:
        # the seed file landed first (a fresh clone has no landing either) and was read
        assert con.execute("select count(*) from staging.stg_rater__categories").fetchone()[0] > 0


@pytest.mark.warehouse
def test_relative_paths_are_taken_from_the_project_whatever_the_working_folder(tmp_path):
    """Plain dbt started from another folder: the build file, the landing and every file the
    models read are found from the project folder; nothing is written where dbt was
    started."""
    from concord_io.project import copy_project, invoke_dbt

    project = copy_project(tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    flags = ["--profiles-dir", str(project), "--project-dir", str(project)]
    result = invoke_dbt(
        ["build", "--select", "+stg_mcq__answers", *flags],
        {"CONCORD_DB_PATH": "warehouse/relative.duckdb", "CONCORD_LANDING_DIR": "warehouse/land"},
        elsewhere,
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert [p.name for p in elsewhere.iterdir()] == []
    assert (project / "warehouse" / "land" / "mcq").is_dir()
    with duckdb.connect(str(project / "warehouse" / "relative.duckdb"), read_only=True) as con:
        assert con.execute("select count(*) from staging.stg_mcq__answers").fetchone()[0] > 0
