"""dbt Python models on open-source Spark: the submission method dbt-spark lacks.

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
model in one line and the command that runs it."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from dbt.adapters.base.impl import PythonJobHelper

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

        spark = SparkSession.builder.getOrCreate()
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
        SparkAdapter.python_submission_helpers = helpers  # type: ignore[method-assign]
        SparkAdapter.default_python_submission_method = default  # type: ignore[method-assign]
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before
