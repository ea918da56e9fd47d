"""The landing's tables as Arrow schemas, exactly as docs/landing.md states them."""

from __future__ import annotations

import pyarrow as pa


def _schema(*fields: tuple[str, pa.DataType, bool]) -> pa.Schema:
    return pa.schema([pa.field(name, kind, nullable=null) for name, kind, null in fields])


PROVENANCE = (
    ("source_file", pa.string(), False),
    ("source_row", pa.int64(), False),
    ("content_hash", pa.string(), False),
)

RUNS = _schema(
    ("run_id", pa.string(), False),
    ("model", pa.string(), False),
    ("model_revision", pa.string(), True),
    ("variant", pa.string(), False),
    ("prompt_template", pa.string(), True),
    ("prompt_template_hash", pa.string(), True),
    ("n_fewshot", pa.int32(), True),
    ("harness", pa.string(), True),
    ("harness_version", pa.string(), True),
    ("task_hashes", pa.map_(pa.string(), pa.string()), True),
    ("source_kind", pa.string(), False),
    ("source_folder", pa.string(), False),
    ("presented_option_order", pa.string(), True),
    ("reader_version", pa.string(), False),
    ("landed_at", pa.timestamp("us", tz="UTC"), False),
)

ANSWERS = _schema(
    ("run_id", pa.string(), False),
    ("task", pa.string(), False),
    ("item_id", pa.string(), False),
    ("language", pa.string(), False),
    ("chosen_option", pa.string(), True),
    ("raw_answer", pa.string(), False),
    ("invalid_reason", pa.string(), True),
    ("gold_option", pa.string(), True),
    ("domain_label", pa.string(), True),
    ("domain", pa.string(), True),
    ("source_column", pa.string(), False),
    *PROVENANCE,
)

OPTION_SCORES = _schema(
    ("run_id", pa.string(), False),
    ("task", pa.string(), False),
    ("item_id", pa.string(), False),
    ("language", pa.string(), False),
    ("option_key", pa.string(), False),
    ("presented_position", pa.int16(), False),
    ("loglik", pa.float64(), False),
    ("option_chars", pa.int32(), False),
    ("option_bytes", pa.int32(), False),
    *PROVENANCE,
)

ITEMS = _schema(
    ("task", pa.string(), False),
    ("item_id", pa.string(), False),
    ("language", pa.string(), False),
    ("option_key", pa.string(), False),
    ("question", pa.string(), False),
    ("option_text", pa.string(), False),
    ("gold", pa.string(), True),
    ("domain_label", pa.string(), False),
    ("domain", pa.string(), True),
    *PROVENANCE,
)

QUARANTINE = _schema(
    ("run_id", pa.string(), False),
    ("source_file", pa.string(), False),
    ("source_row", pa.int64(), False),
    ("record_key", pa.string(), False),
    ("column_name", pa.string(), False),
    ("value", pa.string(), False),
    ("reason", pa.string(), False),
    ("content_hash", pa.string(), False),
)

TABLES = {
    "runs": RUNS,
    "answers": ANSWERS,
    "option_scores": OPTION_SCORES,
    "items": ITEMS,
    "quarantine": QUARANTINE,
}


def conform(name: str, table: pa.Table) -> pa.Table:
    """``table``'s columns in the schema's order and types; a null in a non-null column is a
    bug of the reader, not of the input (the input was refused before), so it raises."""
    schema = TABLES[name]
    columns = [table.column(f.name).cast(f.type) for f in schema]
    for f, column in zip(schema, columns, strict=True):
        if not f.nullable and column.null_count:
            raise RuntimeError(f"reader bug: {name}.{f.name} has {column.null_count} null(s)")
    return pa.Table.from_arrays(columns, schema=schema).combine_chunks()
