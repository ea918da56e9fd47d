"""Long-format answer files (``mcq_answer_sources``, format ``long``): Parquet, JSONL or CSV
with one record per model, run, task, item and language (columns ``model``, ``run``,
``task``, ``item_id``, ``language``, ``answer``; ``model`` and ``run`` may be left out and
named on the registry line; a file without ``task`` holds the study's task, ``xcloze``; an
optional ``gold`` holds the item's gold as its own option key, empty where it has none). The
option texts an answer may quote and the items' domains come from the item files, which
hold the study's task only.

Shape is checked before anything is read: CSV through the strict reader, Parquet by its
schema (a repeated or missing column, a column of the wrong type), JSONL line by line (not a
JSON object, a key given twice in one object). Then every record: a model and a run (a name),
a task (a name) where the file has a task column, an item id that is a canonical positive
whole number, a valid language tag.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from concord_io.errors import ConcordError, printable
from concord_io.landing.identities import (
    ITEM_ID_SQL_PATTERN,
    NAME_HINT,
    NAME_RULE,
    NAME_SQL_PATTERN,
    canonical_language,
    item_id_refused,
)
from concord_io.landing.normalise import normalised
from concord_io.landing.registries import Line
from concord_io.landing.sources import (
    Check,
    SourceFile,
    first_row,
    gold_check,
    json_lines,
    refuse_first,
    with_rows,
)
from concord_io.landing.strict_csv import check_header, read_csv
from concord_io.landing.study import Study

FIELDS = ("model", "run", "task", "item_id", "language", "answer", "gold")
REQUIRED = ["item_id", "language", "answer"]
NOT_AN_OBJECT = "not a JSON object"


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _or_null(text: str) -> str:
    return _literal(text) if text else "null::varchar"


def _parquet_fields(source: SourceFile) -> tuple[pa.Table, bool]:
    try:
        schema = pq.read_schema(pa.BufferReader(source.data))
        table = pq.read_table(pa.BufferReader(source.data))
    except (OSError, pa.ArrowException) as error:
        raise ConcordError(
            f"{printable(source.name)}: not a readable Parquet file ({error})",
            hint="write it again with a Parquet writer (pyarrow, pandas, DuckDB)",
        ) from None
    check_header(list(schema.names), source.name, required=REQUIRED, what="schema")
    columns = {}
    for name in FIELDS:
        if name not in schema.names:
            columns[name] = pa.nulls(table.num_rows, pa.string())
            continue
        column = table.column(name)
        kind = column.type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        text = pa.types.is_string(kind) or pa.types.is_large_string(kind)
        # an integer item id is its canonical decimal text; any other type is refused
        # rather than cast (a float id could hide 7.6 or 1e3)
        whole = name == "item_id" and pa.types.is_integer(kind)
        if not (text or whole or pa.types.is_null(kind)):
            raise ConcordError(
                f"{printable(source.name)}: column {name} has type {column.type}, not text"
                + (" or whole numbers" if name == "item_id" else ""),
                hint="write the column as text (strings)",
            )
        columns[name] = column.cast(pa.string())
    if table.num_rows == 0:
        raise ConcordError(
            f"{printable(source.name)}: the file has columns but no data rows",
            hint="Add its rows or remove the file and its registry line.",
        )
    return with_rows(pa.table(columns)), "task" in schema.names


def _jsonl_fields(con: duckdb.DuckDBPyConnection, source: SourceFile) -> tuple[pa.Table, bool]:
    con.register("json_file", json_lines(source))
    refuse_json_shape(con, "json_file", source.name, parents=())
    refuse_first(
        con,
        "json_file",
        [
            Check(
                f"not json_exists(line, {_literal('$.' + name)})",
                _literal(name),
                _literal(f"no key {name} in the JSON object"),
                f"give every record its {name} (null for a record without one)",
            )
            for name in REQUIRED
        ],
        source.name,
        unit="line",
    )
    fields = ", ".join(f"json_extract_string(line, {_literal('$.' + f)}) as {f}" for f in FIELDS)
    table = con.sql(f"select source_row, {fields} from json_file").to_arrow_table()
    # a file whose records name their task has a task column: a record without one is refused
    # an aggregate always has its one row
    (with_task,) = first_row(con, "select bool_or(json_exists(line, '$.task')) from json_file") or (
        False,
    )
    con.unregister("json_file")
    return table, bool(with_task)


def refuse_json_shape(
    con: duckdb.DuckDBPyConnection, relation: str, file: str, parents: tuple[str, ...]
) -> None:
    """Every line of ``relation`` (``source_row``, ``line``) is a JSON object whose keys,
    and those of the objects at the paths ``parents`` (``$.doc``), are each given once:
    the value of a key given twice would depend on the parser."""
    checks = [
        Check(
            "not coalesce(json_valid(line), false) or json_type(line) <> 'OBJECT'",
            "'(the line)'",
            _literal(NOT_AN_OBJECT),
            "write one JSON object per line",
        )
    ]
    for path in ("$", *parents):
        keys = f"json_keys(line, {_literal(path)})"
        checks.append(
            Check(
                f"len({keys}) <> len(list_distinct({keys}))",
                "'(the line)'",
                f"'key ' || list_filter({keys}, "
                f"lambda k: len(list_filter({keys}, lambda j: j = k)) > 1)[1]"
                " || ' appears more than once in the JSON object' || "
                f"{_literal('' if path == '$' else ' at ' + path)}",
                "give each key once (which of two values counts is not defined)",
            )
        )
    refuse_first(con, relation, checks, file, unit="line")


def read_long(
    con: duckdb.DuckDBPyConnection, study: Study, line: Line, source: SourceFile
) -> pa.Table:
    """The file's records as answers, with ``model`` and ``variant`` (the run) of each (the
    ``items`` relation must be registered on ``con``)."""
    unit = "row"
    if source.suffix == ".parquet":
        fields, with_task = _parquet_fields(source)
    elif source.suffix in (".jsonl", ".json"):
        fields, with_task = _jsonl_fields(con, source)
        unit = "line"
    else:
        checked = read_csv(source.data, source.name, required=REQUIRED)
        with_task = "task" in checked.header
        table = with_rows(checked.table)
        fields = pa.table(
            {
                "source_row": table.column("source_row"),
                **{
                    f: table.column(f) if f in checked.header else pa.nulls(len(table), pa.string())
                    for f in FIELDS
                },
            }
        )
    con.register("long_fields", fields)
    con.execute(
        f"""
        create or replace temp table long_records as
        select
            source_row,
            coalesce(nullif(trim(model), ''), {_or_null(line["model"])}) as model,
            coalesce(nullif(trim(run), ''), {_or_null(line["run"])}) as run,
            {"nullif(trim(task), '')" if with_task else _literal(study.task)} as task,
            item_id,
            language,
            answer,
            nullif(trim(gold), '') as gold
        from long_fields
        """
    )
    con.unregister("long_fields")
    refuse_first(
        con,
        "long_records",
        [
            Check(
                "model is null",
                "'model'",
                "'no model (a model column, or the model in mcq_answer_sources)'",
                "fill in the model column, or the model on the file's registry line",
            ),
            Check(
                "run is null",
                "'run'",
                "'no run (a run column, or the run in mcq_answer_sources)'",
                "fill in the run column, or the run on the file's registry line",
            ),
            Check(
                f"not regexp_full_match(run, {_literal(NAME_SQL_PATTERN)})",
                "'run'",
                f"'run ''' || run || ''' is not a name ({NAME_RULE})'",
                NAME_HINT,
            ),
            Check(
                "task is null",
                "'task'",
                "'no task (the file has a task column: every record names its task)'",
                "fill in the record's task, or leave the column out for the study's task "
                f"({study.task})",
            ),
            Check(
                f"not regexp_full_match(task, {_literal(NAME_SQL_PATTERN)})",
                "'task'",
                f"'task ''' || task || ''' is not a name ({NAME_RULE})'",
                NAME_HINT,
            ),
            Check(
                "language is null or trim(language) = ''",
                "'language'",
                "'no language'",
                "fill in the record's language tag (en, it, fa ...)",
            ),
            gold_check(
                study.options,
                "gold",
                "write the gold as the item's own option key (A, B, ...), or leave it empty "
                "for an item without one",
            ),
        ],
        source.name,
        unit,
    )
    bad_id = first_row(
        con,
        "select source_row, item_id from long_records "
        f"where not regexp_full_match(coalesce(item_id, ''), {_literal(ITEM_ID_SQL_PATTERN)}) "
        "order by source_row limit 1",
    )
    if bad_id:
        raise item_id_refused(f"{printable(source.name)}: {unit} {bad_id[0]}", bad_id[1])
    # a loop per distinct language tag, not per record
    tags = con.execute(
        "select language, min(source_row) from long_records group by language order by 2"
    ).fetchall()
    languages = pa.table(
        {
            "language": [tag for tag, _ in tags],
            "canonical": [
                canonical_language(tag, f"{printable(source.name)}: {unit} {row}")
                for tag, row in tags
            ],
        }
    )
    con.register("long_languages", languages)
    order = line["presented_option_order"] or "".join(study.options)
    # the option texts in the order they were presented (DCBA: the first is the item's D)
    texts = ", ".join(
        f"max(i.option_text) filter (where i.option_key = {_literal(key)}) as text_{position}"
        for position, key in enumerate(order, start=1)
    )
    table = con.sql(
        f"""
        with records as (
            select r.*, l.canonical as canonical_language
            from long_records as r
            inner join long_languages as l using (language)
        ),
        with_texts as (
            select
                r.source_row, r.model, r.run, r.task, r.item_id,
                r.canonical_language as language,
                coalesce(r.answer, '') as raw_answer,
                r.gold as gold_option,
                {_literal(order)} as presented_order,
                -- one label and domain per item and language (every option row holds them)
                any_value(i.domain_label) as domain_label,
                any_value(i.domain) as domain,
                {texts}
            from records as r
            -- the item files hold the study's task only: another task's items have none
            left join items as i
                on i.task = r.task
                and i.item_id = r.item_id
                and i.language = r.canonical_language
            group by all
        )
        select
            model,
            run as variant,
            presented_order,
            task,
            item_id,
            language,
            chosen_option,
            raw_answer,
            invalid_reason,
            gold_option,
            domain_label,
            domain,
            'answer' as source_column,
            {_literal(source.name)} as source_file,
            source_row,
            {_literal(source.content_hash)} as content_hash
        from ({normalised("with_texts", study.options)})
        order by source_row
        """
    ).to_arrow_table()
    con.unregister("long_languages")
    con.execute("drop table long_records")
    return table
