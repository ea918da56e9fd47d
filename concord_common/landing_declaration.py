"""The landed tables as their one declaration states them: the columns of a dbt source in a
staging folder's sources yml (``models/staging/mcq/_mcq__sources.yml`` for the cross-lingual
study's landing, ``models/staging/probe/_probe__sources.yml`` for the probe's), each with its
Arrow type (``data_type``) and whether it may be null (``config.meta.nullable``, else the
source's own ``config.meta.nullable``, else not). The writers (the reader, the probe) write
these schemas, the staging models read the same columns (the ``landing_columns`` macro), and
the tests and docs are made from them, never written a second time."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from concord_common import UserError
from concord_common.project_dir import project_root, project_yaml

#: The Arrow type of each ``data_type`` a landed column may declare (as pyarrow writes them).
ARROW_TYPES = {
    "string": pa.string(),
    "int64": pa.int64(),
    "int32": pa.int32(),
    "int16": pa.int16(),
    "float64": pa.float64(),
    "map<string, string>": pa.map_(pa.string(), pa.string()),
    "timestamp[us, UTC]": pa.timestamp("us", tz="UTC"),
    "list<int32>": pa.list_(pa.int32()),
    "list<int64>": pa.list_(pa.int64()),
    "list<float64>": pa.list_(pa.float64()),
    "list<string>": pa.list_(pa.string()),
}


def declaration_file(relative: str, error: type[UserError] = UserError) -> Path:
    """The sources yml ``relative`` to the project: the repository's the package comes from
    (an editable install, as ``make install`` makes), else the project's it runs in (an
    installed wheel)."""
    beside = Path(__file__).resolve().parents[1] / relative
    if beside.is_file():
        return beside
    return project_root(error=error) / relative


def declared_tables(path: Path, source_name: str) -> dict[str, pa.Schema]:
    """The tables the source ``source_name`` of ``path`` declares, as Arrow schemas."""
    (source,) = [s for s in project_yaml(path)["sources"] if s["name"] == source_name]
    nullable_default = bool(((source.get("config") or {}).get("meta") or {}).get("nullable"))
    tables = {}
    for table in source["tables"]:
        fields = []
        for column in table["columns"]:
            meta = (column.get("config") or {}).get("meta") or {}
            nullable = bool(meta.get("nullable", nullable_default))
            fields.append(pa.field(column["name"], ARROW_TYPES[column["data_type"]], nullable))
        tables[table["name"]] = pa.schema(fields)
    return tables
