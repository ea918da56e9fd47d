"""SQL text from Python values: the one place a name or a string is quoted into a statement
(DuckDB's and Spark's rules agree on both)."""

from __future__ import annotations


def sql_literal(value: object) -> str:
    """``value`` as a SQL string literal: ``it's`` -> ``'it''s'``."""
    return "'" + str(value).replace("'", "''") + "'"


def sql_identifier(name: str) -> str:
    """``name`` as a quoted SQL identifier: ``a"b`` -> ``"a""b"``."""
    return '"' + name.replace('"', '""') + '"'
