"""Each dbt Python model called as dbt on Spark calls it: `model(dbt, session)` with a local
SparkSession, `dbt.ref()` returning Spark DataFrames of its inputs (the DuckDB build's
tables), `dbt.config.get` and `dbt.this`. What it returns must be what dbt's Spark
materialization accepts (pandas or a Spark DataFrame) and equal, value by value, what the
same model built on DuckDB."""

from __future__ import annotations

import importlib.util

import duckdb
import pandas as pd
import pytest

from concord_io.project import PROJECT_ROOT
from concord_models.frames import to_pandas

# every dbt Python model of the project, found on disk (the manifest only exists later)
MODELS = sorted(path.stem for path in (PROJECT_ROOT / "models").rglob("*.py"))


def _node(manifest: dict, name: str) -> dict:
    return next(
        node
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model" and node["name"] == name
    )


class _Config(dict):
    """dbt.config: callable (dbt.config(materialized=...)) and .get(name)."""

    def __call__(self, **kwargs):
        return None


class FakeDbt:
    """The part of dbt's Python model API that the models use."""

    def __init__(self, node: dict, tables: dict, variables: dict):
        self.config = _Config({**node["config"], "vars": variables})
        self.this = f"{node['schema']}.{node['name']}"
        self._tables = tables

    def ref(self, name: str):
        return self._tables[name]


def _load_model(node: dict):
    path = PROJECT_ROOT / node["original_file_path"]
    spec = importlib.util.spec_from_file_location(f"dbt_model_{node['name']}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.model


def _text(values: pd.Series) -> list:
    return [None if pd.isna(v) else str(v) for v in values]


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(list(frame.columns)).reset_index(drop=True)


def test_every_python_model_is_covered(builds):
    in_manifest = {
        node["name"]
        for node in builds.duckdb_manifest["nodes"].values()
        if node["resource_type"] == "model" and node["language"] == "python"
    }
    assert set(MODELS) == in_manifest
    assert len(MODELS) >= 9


@pytest.fixture(scope="module")
def duck(builds):
    with duckdb.connect(str(builds.duckdb), read_only=True) as con:
        yield con


def _spark_input(spark, duck, manifest: dict, name: str):
    """The DuckDB build's table `name` as a Spark DataFrame (through Arrow: typed, even empty)."""
    node = _node(manifest, name)
    table = duck.sql(f"select * from {node['schema']}.{name}").to_arrow_table()
    return spark.createDataFrame(table)


@pytest.mark.parametrize("name", MODELS)
def test_python_model_on_spark_dataframes(builds, duck, spark, python_model_vars, name):
    manifest = builds.duckdb_manifest
    node = _node(manifest, name)
    tables = {ref["name"]: _spark_input(spark, duck, manifest, ref["name"]) for ref in node["refs"]}
    result = _load_model(node)(FakeDbt(node, tables, python_model_vars), spark)

    # what dbt's Python materialization on Spark turns into a table: pandas or Spark
    assert isinstance(result, pd.DataFrame) or hasattr(result, "toPandas"), type(result)
    assert spark.createDataFrame(result).count() == len(to_pandas(result))

    got = _sorted(to_pandas(result))
    expected = _sorted(duck.sql(f"select * from {node['schema']}.{name}").df())
    assert list(got.columns) == list(expected.columns)
    assert len(got) == len(expected) > 0
    for column in expected.columns:
        left, right = got[column], expected[column]
        if pd.api.types.is_float_dtype(right):
            pd.testing.assert_series_equal(
                left.astype(float), right, check_names=False, rtol=1e-12, atol=1e-12
            )
        else:
            assert _text(left) == _text(right), column
