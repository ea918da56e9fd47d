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

A file is read, checked and turned into answers :data:`BATCH_ROWS` records at a time (a
Parquet file streamed by record batches, never held whole), so memory does not grow with its
size. The refusal is the one the whole file would get: the first rule (in order) that any
record breaks, at its first record, so a file is refused only once its last batch is read.
"""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import numpy as np
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
    first_broken,
    first_row,
    gold_check,
    json_lines,
    refusal,
    refuse_first,
    with_rows,
)
from concord_io.landing.strict_csv import check_header, read_csv
from concord_io.landing.study import Study

FIELDS = ("model", "run", "task", "item_id", "language", "answer", "gold")
REQUIRED = ["item_id", "language", "answer"]
NOT_AN_OBJECT = "not a JSON object"
#: Records checked and turned into answers at a time (a Parquet file is read so, in record
#: batches): what a file's reading holds in memory, whatever its size.
BATCH_ROWS = 1 << 17


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _or_null(text: str) -> str:
    return _literal(text) if text else "null::varchar"


def _not_parquet(source: SourceFile, error: Exception) -> ConcordError:
    return ConcordError(
        f"{printable(source.name)}: not a readable Parquet file ({error})",
        hint="write it again with a Parquet writer (pyarrow, pandas, DuckDB)",
    )


def _parquet_fields(source: SourceFile) -> tuple[Iterator[pa.Table], bool]:
    """The file's fields in record batches (``source_row`` counted over the file), checked
    by its schema (and footer) before any is read."""
    try:
        parquet = pq.ParquetFile(source.path)
        schema = parquet.schema_arrow
    except (OSError, pa.ArrowException) as error:
        raise _not_parquet(source, error) from None
    try:
        check_header(list(schema.names), source.name, required=REQUIRED, what="schema")
        for name in FIELDS:
            if name not in schema.names:
                continue
            declared = kind = schema.field(name).type
            if pa.types.is_dictionary(kind):
                kind = kind.value_type
            text = pa.types.is_string(kind) or pa.types.is_large_string(kind)
            # an integer item id is its canonical decimal text; any other type is refused
            # rather than cast (a float id could hide 7.6 or 1e3)
            whole = name == "item_id" and pa.types.is_integer(kind)
            if not (text or whole or pa.types.is_null(kind)):
                raise ConcordError(
                    f"{printable(source.name)}: column {name} has type {declared}, not text"
                    + (" or whole numbers" if name == "item_id" else ""),
                    hint="write the column as text (strings)",
                )
        if parquet.metadata.num_rows == 0:
            raise ConcordError(
                f"{printable(source.name)}: the file has columns but no data rows",
                hint="Add its rows or remove the file and its registry line.",
            )
    except BaseException:
        parquet.close()
        raise
    return _parquet_batches(parquet, source), "task" in schema.names


def _parquet_batches(parquet: pq.ParquetFile, source: SourceFile) -> Iterator[pa.Table]:
    present = [name for name in FIELDS if name in parquet.schema_arrow.names]
    first = 1
    try:
        batches = parquet.iter_batches(batch_size=BATCH_ROWS, columns=present)
        while True:
            try:
                batch = next(batches)
            except StopIteration:
                break
            except (OSError, pa.ArrowException) as error:
                raise _not_parquet(source, error) from None
            if batch.num_rows == 0:
                continue
            columns = {
                name: batch.column(name).cast(pa.string())
                if name in present
                else pa.nulls(batch.num_rows, pa.string())
                for name in FIELDS
            }
            rows = pa.array(np.arange(first, first + batch.num_rows, dtype=np.int64))
            first += batch.num_rows
            yield pa.table({**columns, "source_row": rows})
    finally:
        parquet.close()
    # the records read are the bytes hashed: the file was not rewritten meanwhile
    source.check_unchanged()


def _slices(fields: pa.Table) -> Iterator[pa.Table]:
    """A table read whole, in batches (what its checks and answers hold at a time)."""
    for start in range(0, fields.num_rows, BATCH_ROWS):
        yield fields.slice(start, BATCH_ROWS)


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


def _record_checks(study: Study) -> list[Check]:
    """The rules every record of a long file is held to, in the order they are reported."""
    return [
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
    ]


def _fields(
    con: duckdb.DuckDBPyConnection, source: SourceFile
) -> tuple[Iterator[pa.Table], bool, str]:
    """The file's fields (``source_row`` and :data:`FIELDS`) in batches, whether it has a
    task column, and what its records are called in messages (row, line)."""
    if source.suffix == ".parquet":
        batches, with_task = _parquet_fields(source)
        return batches, with_task, "row"
    if source.suffix in (".jsonl", ".json"):
        fields, with_task = _jsonl_fields(con, source)
        return _slices(fields), with_task, "line"
    checked = read_csv(source.read_bytes(), source.name, required=REQUIRED)
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
    return _slices(fields), "task" in checked.header, "row"


def read_long(
    con: duckdb.DuckDBPyConnection, study: Study, line: Line, source: SourceFile
) -> Iterator[pa.Table]:
    """The file's records as answers, with ``model`` and ``variant`` (the run) of each (the
    ``items`` relation must be registered on ``con``), in file order, in tables of at most
    :data:`BATCH_ROWS` records, each yielded once it is checked. A bad record is refused
    (raised) after the last batch, as the whole file's first bad record: the rules in order
    (:func:`_record_checks`, then the item id, then the language tag), each at its first
    record. The caller lands nothing of a file before the generator is done."""
    fields, with_task, unit = _fields(con, source)
    checks = _record_checks(study)
    item_id_rank, language_rank = len(checks), len(checks) + 1
    #: the refusal so far: the rank of its rule (a lower rank is reported first) and error
    refused: tuple[int, ConcordError] | None = None
    canonical: dict[str, str] = {}
    for batch in fields:  # a loop per batch of records
        con.register("long_fields", batch)
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
        rank = refused[0] if refused else language_rank + 1
        # only a rule before the refusal so far can change it (a refusal found in an earlier
        # batch is at its rule's first record)
        broken = first_broken(con, "long_records", checks[:rank])
        if broken:
            index, row, column, problem = broken
            refused = (index, refusal(checks[index], source.name, unit, row, column, problem))
            if index == 0:
                break  # nothing comes before it
            continue
        if rank > item_id_rank:
            bad_id = first_row(
                con,
                "select source_row, item_id from long_records where not "
                f"regexp_full_match(coalesce(item_id, ''), {_literal(ITEM_ID_SQL_PATTERN)}) "
                "order by source_row limit 1",
            )
            if bad_id:
                where = f"{printable(source.name)}: {unit} {bad_id[0]}"
                refused = (item_id_rank, item_id_refused(where, bad_id[1]))
                continue
        if rank > language_rank:
            tags, bad_tag = _canonical_languages(con, source, unit, canonical)
            if bad_tag:
                refused = (language_rank, bad_tag)
                continue
            yield _answers(con, study, line, source, {tag: canonical[tag] for tag in tags})
    con.execute("drop table if exists long_records")
    if refused:
        raise refused[1]


def _canonical_languages(
    con: duckdb.DuckDBPyConnection, source: SourceFile, unit: str, canonical: dict[str, str]
) -> tuple[list[str], ConcordError | None]:
    """The language tags of the batch in ``long_records``, each added to ``canonical`` (a
    tag -> its canonical form), and the refusal of its first tag (by its first record) that
    is not valid."""
    # a loop per distinct language tag, not per record
    tags = con.execute(
        "select language, min(source_row) from long_records group by language order by 2"
    ).fetchall()
    for tag, row in tags:
        if tag in canonical:
            continue
        try:
            canonical[tag] = canonical_language(tag, f"{printable(source.name)}: {unit} {row}")
        except ConcordError as error:
            return [], error
    return [tag for tag, _ in tags], None


def _answers(
    con: duckdb.DuckDBPyConnection,
    study: Study,
    line: Line,
    source: SourceFile,
    languages: dict[str, str],
) -> pa.Table:
    """The answers of the checked batch in ``long_records``, by ``source_row``
    (``languages``: its language tags, each with its canonical form)."""
    con.register(
        "long_languages",
        pa.table(
            {"language": list(languages), "canonical": list(languages.values())},
            schema=pa.schema([("language", pa.string()), ("canonical", pa.string())]),
        ),
    )
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
    return table
