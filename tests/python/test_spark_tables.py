"""How the mirror reads a table Spark wrote (concord_io.spark.table_select), without Spark:
the folders laid out as Spark lays them out, written here by DuckDB."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from concord_io.spark import table_select

ROWS = (
    "select * from (values ('a', 1.5::double, 'r1'), ('b', 2.5::double, 'r2')) "
    "as t(item_id, score, run_id)"
)


def _write(folder: Path, *, partitions: bool, schema: bool) -> None:
    """A table partitioned by run_id: its partitions' folders and its `_schema/`."""
    folder.mkdir(parents=True)
    if partitions:
        duckdb.execute(
            f"copy ({ROWS}) to '{folder}' (format parquet, partition_by (run_id), "
            "overwrite_or_ignore true)"
        )
    if schema:
        (folder / "_schema").mkdir()
        duckdb.execute(
            f"copy (select item_id, score, run_id from ({ROWS}) where false) "
            f"to '{folder / '_schema' / 'part-0.parquet'}' (format parquet)"
        )


@pytest.mark.parametrize(
    ("partitions", "schema", "rows"),
    [
        (True, False, [("a", 1.5, "r1"), ("b", 2.5, "r2")]),  # a table with rows
        (False, True, []),  # every partition dropped: the columns kept
        (True, True, [("a", 1.5, "r1"), ("b", 2.5, "r2")]),  # empty once, rows again
    ],
)
def test_a_partitioned_table_is_read_with_its_columns_whatever_it_holds(
    tmp_path, partitions, schema, rows
):
    folder = tmp_path / "intermediate.db" / "t"
    _write(folder, partitions=partitions, schema=schema)
    select = table_select(folder)
    assert select is not None
    read = duckdb.sql(select)
    # the partition column last, as Spark's catalogue has it; as text, as its folders say
    assert read.columns == ["item_id", "score", "run_id"]
    assert read.types == ["VARCHAR", "DOUBLE", "VARCHAR"]
    assert sorted(read.fetchall()) == rows


def test_a_table_folder_without_a_parquet_file_has_no_select(tmp_path):
    (tmp_path / "t" / "run_id=r1").mkdir(parents=True)
    assert table_select(tmp_path / "t") is None
