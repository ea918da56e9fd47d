"""concord_io.frames.to_pandas: one table, whatever dbt.ref() returned (the Spark DataFrame
case runs in tests/spark/, with a local SparkSession)."""

from __future__ import annotations

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

from concord_io.frames import to_pandas

EXPECTED = pd.DataFrame({"model": ["a", "b"], "n": [3, 4]})


def test_duckdb_relation_arrow_and_pandas_give_the_same_frame():
    con = duckdb.connect()
    relation = con.sql("select * from (values ('a', 3), ('b', 4)) t(model, n) order by model")
    for source in (relation, pa.Table.from_pandas(EXPECTED), EXPECTED):
        pd.testing.assert_frame_equal(to_pandas(source), EXPECTED, check_dtype=False)


def test_anything_else_is_refused_with_what_was_expected():
    with pytest.raises(TypeError, match="builtins.list.*DuckDB relation, a Spark DataFrame"):
        to_pandas([1, 2])
