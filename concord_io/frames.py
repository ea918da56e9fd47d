"""What `dbt.ref()` returns, as pandas, whatever runs the dbt Python model.

dbt-duckdb hands a Python model a DuckDB relation; dbt on Spark (dbt-databricks, or a test
with a local SparkSession) hands it a Spark DataFrame; a unit test may pass pandas or Arrow.
The models read sufficient statistics (counts, per-scenario ranks), never raw answer rows,
so collecting them to the driver costs memory that does not grow with the answers.
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa


def to_pandas(relation) -> pd.DataFrame:
    """A pandas DataFrame of a DuckDB relation, a Spark DataFrame, an Arrow table or pandas."""
    if isinstance(relation, pd.DataFrame):
        return relation
    if isinstance(relation, pa.Table):
        return relation.to_pandas()
    if hasattr(relation, "toPandas"):  # pyspark.sql.DataFrame, classic or Spark Connect
        return relation.toPandas()
    if hasattr(relation, "df"):  # duckdb.DuckDBPyRelation
        return relation.df()
    raise TypeError(
        f"cannot read a {type(relation).__module__}.{type(relation).__name__} as a table: "
        "expected a DuckDB relation, a Spark DataFrame, an Arrow table or pandas"
    )
