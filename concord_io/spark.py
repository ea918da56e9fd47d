"""Concord on open-source Spark: the Python models run on Spark's own tables, and Spark's
build mirrored into a DuckDB file for the checks, publish and the report.

dbt-spark hands a Python model's code to a Databricks cluster, its only submission methods;
on open-source Spark it cannot run one. With the ``spark`` target's ``method: session``, dbt
runs in the process that holds the SparkSession, so a model's code can run right there:
:class:`SessionPythonJob` is that submission method (``session``). It runs the code dbt-spark
compiled for the model, unchanged: the model, its ``dbt`` object whose ``ref()`` is
``spark.table``, and the write of what ``model(dbt, session)`` returns as the model's table
(``file_format`` parquet). The Python models read their parents' tables on Spark and write
theirs there; no DuckDB build is read.

:func:`python_models_in_session` gives dbt-spark the method for the dbt commands run inside
it (``concord build --target spark``, through :mod:`concord_io.dbt_sequence`, and the Spark
tests) and says so to the project's table materialization
(``macros/cross_db/python_models_on_spark.sql``, env ``CONCORD_SPARK_PYTHON``). A plain
``dbt build --target spark`` has no such method: the materialization names each Python
model in one line and the command that runs it.

:func:`mirror` copies every table Spark's build wrote (``<schema>.db/<table>/`` Parquet under
``CONCORD_SPARK_DIR``) into one DuckDB file, written whole or not at all: the quality
checkpoint, publish (the same serving file and Parquet as a DuckDB build's, so BI tools read
the same file either way), the report and the summary read it as they read a DuckDB build.

    python -m concord_io.spark mirror --spark-dir warehouse/spark --database F.duckdb
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dbt.adapters.base.impl import PythonJobHelper

from concord_common import folders
from concord_common.sql import sql_identifier, sql_literal
from concord_io.connect import open_duckdb
from concord_io.errors import ConcordError, run_main

SESSION = "session"
#: Set to ``session`` while the method is given: the materialization reads it.
ENV = "CONCORD_SPARK_PYTHON"


class SessionPythonJob(PythonJobHelper):
    """A Python model's compiled code run in this process on dbt-spark's own SparkSession
    (``method: session`` builds it with ``getOrCreate``: this process holds one)."""

    def __init__(self, parsed_model: dict, credentials: Any) -> None:  # noqa: D107
        self.name = f"{parsed_model['schema']}.{parsed_model['alias']}"

    def submit(self, compiled_code: str) -> None:
        from pyspark.sql import SparkSession

        # dbt-spark's own session (method session), active in the thread that runs the model
        spark = SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()
        code = compile(compiled_code, f"<dbt Python model {self.name}>", "exec")
        exec(code, {"spark": spark, "__name__": f"dbt_python_model_{self.name}"})  # noqa: S102


@contextlib.contextmanager
def python_models_in_session() -> Iterator[None]:
    """dbt-spark given the ``session`` submission method, as its default, for the dbt
    commands run inside (this process only); as it was after."""
    from dbt.adapters.spark.impl import SparkAdapter

    helpers = SparkAdapter.__dict__["python_submission_helpers"]
    default = SparkAdapter.__dict__["default_python_submission_method"]
    before = os.environ.get(ENV)
    SparkAdapter.python_submission_helpers = property(  # type: ignore[method-assign]
        lambda self: {**helpers.fget(self), SESSION: SessionPythonJob}
    )
    SparkAdapter.default_python_submission_method = property(  # type: ignore[method-assign]
        lambda self: SESSION
    )
    os.environ[ENV] = SESSION
    try:
        yield
    finally:
        _stop_session()
        SparkAdapter.python_submission_helpers = helpers  # type: ignore[method-assign]
        SparkAdapter.default_python_submission_method = default  # type: ignore[method-assign]
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before


def _stop_session() -> None:
    """The SparkSession dbt started, stopped once its commands are done: its JVM's threads
    otherwise outlive the interpreter's shutdown, which then reports DuckDB's bindings as
    leaked."""
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession() or SparkSession._instantiatedSession
    if session is not None:
        session.stop()


#: Spark's own folders in its warehouse, which hold no table.
NOT_TABLES = ("metastore_db",)


def spark_tables(spark_dir: Path) -> list[tuple[str, str, Path]]:
    """(schema, table, folder) of every table Spark's build wrote under ``spark_dir``."""
    return [
        (folder.parent.name.removesuffix(".db"), folder.name, folder)
        for folder in sorted(spark_dir.glob("*.db/*"))
        if folder.is_dir() and folder.parent.name not in NOT_TABLES
    ]


def mirror(spark_dir: Path, database: Path) -> int:
    """Every table of Spark's build as a table of the DuckDB file ``database`` (its columns
    and rows as Spark wrote them), the file replaced whole or not at all; the number of
    tables. A table folder without a Parquet file is refused by name (Spark writes one even
    for a table without rows; a partitioned table without partitions keeps its columns in
    ``_schema/``, which Spark's own readers skip: ``spark_keep_table_schema`` in
    macros/cross_db/spark_forms.sql)."""
    tables = spark_tables(spark_dir)
    if not tables:
        raise ConcordError(
            f"{spark_dir}: no table of a Spark build", hint="run dbt build --target spark first"
        )
    staging = folders.hidden_sibling(database, "tmp")
    staging.unlink(missing_ok=True)
    try:
        with open_duckdb(staging) as con:
            for schema, table, folder in tables:  # a loop per table, each read by DuckDB
                name = f"{sql_identifier(schema)}.{sql_identifier(table)}"
                con.execute(f"create schema if not exists {sql_identifier(schema)}")
                select = table_select(folder)
                if select is None:
                    raise ConcordError(
                        f"{folder}: Spark's table {schema}.{table} has no Parquet file",
                        hint="build it again (dbt build --target spark)",
                    )
                con.execute(f"create table {name} as {select}")
            con.execute("checkpoint")
        folders.fsync(staging)
        os.replace(staging, database)
        folders.fsync(database.parent)
    finally:
        staging.unlink(missing_ok=True)
    return len(tables)


def table_select(folder: Path) -> str | None:
    """The DuckDB select that reads the Spark table in ``folder`` (None: no Parquet file):
    its Parquet files, or for a table partitioned by a column (``<column>=<value>/``), the
    rows of every partition, the column read from the folders' names as Spark writes them
    (text, escaped as Spark escapes it), with the columns kept in ``_schema/`` when it has
    none (or had none once)."""

    def listed(files: list[Path]) -> str:
        return "[" + ", ".join(sql_literal(str(p)) for p in sorted(files)) + "]"

    if files := list(folder.glob("*.parquet")):
        return f"select * from read_parquet({listed(files)})"
    selects = []
    if columns := list(folder.glob("_schema/*.parquet")):
        selects.append(f"select * from read_parquet({listed(columns)})")
    if partitions := list(folder.glob("*=*/*.parquet")):
        selects.append(
            f"select * from read_parquet({listed(partitions)}, "
            "hive_partitioning = true, hive_types_autocast = false)"
        )
    return " union all by name ".join(selects) or None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Spark's build mirrored into a DuckDB file.")
    commands = parser.add_subparsers(dest="command", required=True)
    mirroring = commands.add_parser("mirror", help="Spark's tables into one DuckDB file")
    mirroring.add_argument("--spark-dir", type=Path, required=True)
    mirroring.add_argument("--database", type=Path, required=True)
    args = parser.parse_args(argv)
    count = mirror(args.spark_dir, args.database)
    print(f"mirrored {count} tables of Spark's build in {args.spark_dir} into {args.database}")
    return 0


if __name__ == "__main__":
    run_main(main)
