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


class _This:
    def __init__(self, schema: str, identifier: str):
        self.database, self.schema, self.identifier = "memory", schema, identifier

    def __repr__(self) -> str:
        return f'"{self.database}"."{self.schema}"."{self.identifier}"'


class _Dbt:
    def __init__(self, identifier: str):
        self.this = _This("main", identifier)


def test_a_group_keeps_its_rows_while_its_version_holds_and_is_computed_again_otherwise():
    """kept_or_computed: a group whose version is unchanged keeps its last rows (not
    computed), a changed or new group is computed and stamped, a group that is gone leaves,
    and with no context every group is computed."""
    from concord_models.frames import group_version, kept_or_computed

    groups = {"a": pd.DataFrame({"x": [1, 2]}), "b": pd.DataFrame({"x": [3]})}

    def version_of(context, group, rows):
        return group_version(context, group, rows, "a parameter")

    last = pd.DataFrame({
        "group": ["a", "gone", "b"],
        "total": [-1, 9, -1],  # a mark: a computed group would sum its rows
        "group_version": [version_of("c", "a", groups["a"]), "old", "stale"],
    })  # fmt: skip
    computed = []

    def compute(group, rows):
        computed.append(group)
        return pd.DataFrame({"group": [group], "total": [int(rows["x"].sum())]})

    frame = kept_or_computed(iter(groups.items()), "group", last, "c", version_of, compute)
    assert frame[["group", "total"]].values.tolist() == [["a", -1], ["b", 3]]
    assert computed == ["b"] and frame["group_version"].tolist()[1] == version_of(
        "c", "b", groups["b"]
    )
    computed.clear()
    again = kept_or_computed(iter(groups.items()), "group", last, None, version_of, compute)
    assert again["total"].tolist() == [3, 3] and computed == ["a", "b"]
    assert version_of("c", "a", groups["a"].assign(x=[1, 5])) != version_of("c", "a", groups["a"])
    assert version_of("d", "a", groups["a"]) != version_of("c", "a", groups["a"])
    assert group_version("c", "a", groups["a"], 1) != group_version("c", "a", groups["a"], 2)


def test_the_last_build_is_read_only_where_its_table_has_every_column_and_the_context_set():
    from concord_models.frames import build_context, last_build

    columns = {"group": "string", "total": "int64", "group_version": "string"}
    with duckdb.connect() as con:
        assert build_context(con) is None  # no plugin set it: nothing is kept
        con.execute("set variable concord_build_context = 'ctx'")
        assert build_context(con) == "ctx"
        assert last_build(_Dbt("missing"), con, columns).empty
        con.execute("create table older as select 'a' as \"group\", 1 as total")
        assert last_build(_Dbt("older"), con, columns).empty  # no version column: none kept
        con.execute(
            "create table kept as select 'a' as \"group\", 2 as total, 'v' as group_version"
        )
        found = last_build(_Dbt("kept"), con, columns)
        assert found.values.tolist() == [["a", 2, "v"]]
        assert found.dtypes.astype(str).to_dict() == columns


def test_a_spark_session_takes_the_context_from_the_environment_and_keeps_nothing(monkeypatch):
    from concord_models.frames import build_context, last_build

    spark = object()  # no execute(): not DuckDB
    monkeypatch.delenv("CONCORD_BUILD_CONTEXT", raising=False)
    assert build_context(spark) is None
    monkeypatch.setenv("CONCORD_BUILD_CONTEXT", "ctx")
    assert build_context(spark) == "ctx"
    assert last_build(_Dbt("any"), spark, {"group": "string"}).empty
