"""concord_models.frames.to_pandas: one table, whatever dbt.ref() returned (the Spark DataFrame
case runs in tests/spark/, with a local SparkSession)."""

from __future__ import annotations

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

from concord_models.frames import to_pandas

EXPECTED = pd.DataFrame({"model": ["a", "b"], "n": [3, 4]})


def test_duckdb_relation_arrow_and_pandas_give_the_same_frame():
    con = duckdb.connect()
    relation = con.sql("select * from (values ('a', 3), ('b', 4)) t(model, n) order by model")
    for source in (relation, pa.Table.from_pandas(EXPECTED), EXPECTED):
        pd.testing.assert_frame_equal(to_pandas(source), EXPECTED, check_dtype=False)


def test_anything_else_is_refused_with_what_was_expected():
    with pytest.raises(TypeError, match="builtins.list.*DuckDB relation, a Spark DataFrame"):
        to_pandas([1, 2])


def test_frames_by_gives_one_group_at_a_time_in_key_order():
    """A DuckDB relation is filtered where it lives (quotes in a key included); a pandas
    frame is grouped: the same groups either way."""
    import duckdb
    import pandas as pd

    from concord_models.frames import frames_by

    frame = pd.DataFrame(
        {"dataset": ["b", "a", "o'q", "a"], "item_id": ["1", "2", "3", "4"], "x": [1, 2, 3, 4]}
    )
    with duckdb.connect() as con:
        relation = con.from_df(frame)
        lazy = [(k, g["item_id"].tolist()) for k, g in frames_by(relation, "dataset", ["item_id"])]
    eager = [(k, g["item_id"].tolist()) for k, g in frames_by(frame, "dataset", ["item_id"])]
    assert lazy == eager == [("a", ["2", "4"]), ("b", ["1"]), ("o'q", ["3"])]


def test_per_cell_gives_each_cells_keys_and_figures_typed_even_with_no_row():
    from concord_models.frames import per_cell

    frame = pd.DataFrame({"run_id": ["b", "a", "a"], "task": ["t", "u", "t"], "x": [1, 2, 3]})
    columns = {"run_id": "string", "task": "string", "total": "int64"}
    cells = per_cell(frame, ["run_id", "task"], lambda cell: {"total": cell["x"].sum()}, columns)
    assert cells.values.tolist() == [["a", "t", 3], ["a", "u", 2], ["b", "t", 1]]
    empty = per_cell(frame.iloc[:0], ["run_id", "task"], lambda cell: {}, columns)
    assert empty.empty and empty.dtypes.astype(str).to_dict() == columns
