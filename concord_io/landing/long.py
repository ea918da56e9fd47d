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

The engine does the row work: DuckDB reads a Parquet file where it lies (CSV and JSONL are
parsed by their strict readers first), checks every rule in one pass over its records, and
the file's answers are SQL over it that DuckDB evaluates when their run is written (a
:class:`concord_io.landing.mcq.Piece`): no record passes through Python, and
memory is DuckDB's limit, whatever the file's size. The refusal is the one a reading record
by record would give: the first rule (in order) that any record breaks, at its first record.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from concord_common.sql import sql_literal
from concord_io.errors import ConcordError, printable
from concord_io.landing.names import (
    NAME_HINT,
    NAME_RULE,
    NAME_SQL_PATTERN,
    canonical_language,
    item_id_broken,
    item_id_refused,
    normalised,
)
from concord_io.landing.schemas import Line, Study
from concord_io.landing.sources import (
    Check,
    SourceFile,
    check_header,
    first_row,
    gold_check,
    json_lines,
    read_csv,
    refusal,
    refuse_first,
    refuse_json_shape,
    with_rows,
)

FIELDS = ("model", "run", "task", "item_id", "language", "answer", "gold")
REQUIRED = ["item_id", "language", "answer"]


def _or_null(text: str) -> str:
    return sql_literal(text) if text else "null::varchar"


def _not_parquet(source: SourceFile, error: Exception) -> ConcordError:
    return ConcordError(
        f"{printable(source.name)}: not a readable Parquet file ({error})",
        hint="write it again with a Parquet writer (pyarrow, pandas, DuckDB)",
    )


#: Characters DuckDB reads as a glob in a file path: such a file is read by pyarrow.
GLOB = set("*?[]{}")


def _parquet_fields(source: SourceFile, name: str) -> Fields:
    """The file's fields, checked by its schema (and footer) before any record is read."""
    try:
        with pq.ParquetFile(source.path) as parquet:
            schema = parquet.schema_arrow
            n_rows = parquet.metadata.num_rows
    except (OSError, pa.ArrowException) as error:
        raise _not_parquet(source, error) from None
    check_header(list(schema.names), source.name, required=REQUIRED, what="schema")
    for field in FIELDS:
        if field not in schema.names:
            continue
        declared = kind = schema.field(field).type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        text = pa.types.is_string(kind) or pa.types.is_large_string(kind)
        # an integer item id is its canonical decimal text; any other type is refused
        # rather than cast (a float id could hide 7.6 or 1e3)
        whole = field == "item_id" and pa.types.is_integer(kind)
        if not (text or whole or pa.types.is_null(kind)):
            raise ConcordError(
                f"{printable(source.name)}: column {field} has type {declared}, not text"
                + (" or whole numbers" if field == "item_id" else ""),
                hint="write the column as text (strings)",
            )
    if n_rows == 0:
        raise ConcordError(
            f"{printable(source.name)}: the file has columns but no data rows",
            hint="Add its rows or remove the file and its registry line.",
        )
    present = [f for f in FIELDS if f in schema.names]
    columns = ", ".join(
        f'"{f}"::varchar as {f}' if f in present else f"null::varchar as {f}" for f in FIELDS
    )
    with_task = "task" in present
    if GLOB & set(str(source.path)):
        # read_parquet would take the name for a pattern: pyarrow reads the file instead
        try:
            table = with_rows(pq.read_table(source.path, columns=present))
        except (OSError, pa.ArrowException) as error:
            raise _not_parquet(source, error) from None
        source.check_unchanged()
        return Fields(f"select source_row, {columns} from {name}", {name: table}, with_task, n_rows)
    path = sql_literal(str(source.path))
    sql = (
        f"select file_row_number + 1 as source_row, {columns} "
        f"from read_parquet({path}, file_row_number = true)"
    )
    return Fields(sql, {}, with_task, n_rows)


def _jsonl_fields(con: duckdb.DuckDBPyConnection, source: SourceFile) -> tuple[pa.Table, bool]:
    con.register("json_file", json_lines(source))
    refuse_json_shape(con, "json_file", source.name, parents=())
    refuse_first(
        con,
        "json_file",
        [
            Check(
                f"not json_exists(line, {sql_literal('$.' + name)})",
                sql_literal(name),
                sql_literal(f"no key {name} in the JSON object"),
                f"give every record its {name} (null for a record without one)",
            )
            for name in REQUIRED
        ],
        source.name,
        unit="line",
    )
    fields = ", ".join(f"json_extract_string(line, {sql_literal('$.' + f)}) as {f}" for f in FIELDS)
    table = con.sql(f"select source_row, {fields} from json_file").to_arrow_table()
    # a file whose records name their task has a task column: a record without one is refused
    # an aggregate always has its one row
    (with_task,) = first_row(con, "select bool_or(json_exists(line, '$.task')) from json_file") or (
        False,
    )
    con.unregister("json_file")
    return table, bool(with_task)


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
            f"not regexp_full_match(run, {sql_literal(NAME_SQL_PATTERN)})",
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
            f"not regexp_full_match(task, {sql_literal(NAME_SQL_PATTERN)})",
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


@dataclass(frozen=True)
class Fields:
    """A file's fields as DuckDB reads them: ``sql`` selects ``source_row`` (1 = its first
    record) and :data:`FIELDS` as text, naming ``tables`` (Arrow tables to register: a
    format parsed in Python); ``with_task``: the file has a task column; ``n_rows``: the
    records' count, or more (a line number past the last record)."""

    sql: str
    tables: dict[str, pa.Table]
    with_task: bool
    n_rows: int


def _table_fields(table: pa.Table, with_task: bool, name: str) -> Fields:
    """Fields parsed in Python (``source_row`` and some of :data:`FIELDS`)."""
    columns = ", ".join(
        f"{f}::varchar as {f}" if f in table.column_names else f"null::varchar as {f}"
        for f in FIELDS
    )
    rows = pc.max(table.column("source_row")).as_py() or 0
    return Fields(f"select source_row, {columns} from {name}", {name: table}, with_task, rows)


def _fields(con: duckdb.DuckDBPyConnection, source: SourceFile, name: str) -> tuple[Fields, str]:
    """The file's fields, and what its records are called in messages (row, line);
    ``name``: what the file's Arrow table, where it has one, is registered as."""
    if source.suffix == ".parquet":
        return _parquet_fields(source, name), "row"
    if source.suffix in (".jsonl", ".json"):
        table, with_task = _jsonl_fields(con, source)
        return _table_fields(table, with_task, name), "line"
    checked = read_csv(source.read_bytes(), source.name, required=REQUIRED)
    table = with_rows(checked.table.select([f for f in FIELDS if f in checked.header]))
    return _table_fields(table, "task" in checked.header, name), "row"


@dataclass(frozen=True)
class LongFile:
    """A long file read and checked: its runs (model, variant, presented order) in the order
    their first records come, and SQL of each run's answers that DuckDB evaluates where the
    file lies, naming ``tables``."""

    source: SourceFile
    runs: list[tuple[str, str, str]]
    n_rows: int
    run_answers: dict[tuple[str, str], str]
    tables: dict[str, pa.Table]
    #: SQL of whether no record of the file is set aside by a rule within it, asked when
    #: the first of its runs is written (an unchanged file is not checked for it); None:
    #: not known without the run's own check
    clean: str | None = None


def _records(fields: Fields, study: Study, line: Line, where: str = "") -> str:
    """SQL: the file's records, with the registry line's model and run where they have none
    and the study's task where the file has no task column; ``where``: a condition on the
    file's fields, which DuckDB pushes into its reading (a row group it excludes is not
    read)."""
    return f"""
        select
            source_row,
            coalesce(nullif(trim(model), ''), {_or_null(line["model"])}) as model,
            coalesce(nullif(trim(run), ''), {_or_null(line["run"])}) as run,
            {"nullif(trim(task), '')" if fields.with_task else sql_literal(study.task)} as task,
            item_id,
            language,
            answer,
            nullif(trim(gold), '') as gold
        from ({fields.sql}) {f"where {where}" if where else ""}
        """


def _refuse_first_broken(
    con: duckdb.DuckDBPyConnection, records: str, checks: list[Check], source: SourceFile,
    unit: str,
) -> None:  # fmt: skip
    """The first rule (in order: ``checks``, then the item id) that a record breaks, at its
    first record, refused; every rule is evaluated in one pass over the records (which also
    reads every column, so a damaged page is found before anything is written)."""
    item_id = item_id_broken("item_id")
    firsts = ", ".join(
        f"min(source_row) filter (where {condition})"
        for condition in [*(check.condition for check in checks), item_id]
    )
    found = first_row(con, f"select {firsts}, count(answer) from ({records})")
    assert found is not None  # an aggregate has its one row
    broken = [(index, row) for index, row in enumerate(found[:-1]) if row is not None]
    if not broken:
        return
    index, row = broken[0]
    if index == len(checks):
        bad = first_row(con, f"select item_id from ({records}) where source_row = {row}")
        raise item_id_refused(f"{printable(source.name)}: {unit} {row}", bad[0] if bad else None)
    check = checks[index]
    problem = first_row(
        con,
        f"select {check.column}, ({check.problem})::varchar from ({records}) "
        f"where source_row = {row}",
    )
    assert problem is not None
    raise refusal(check, source.name, unit, row, *problem)


def read_long(
    con: duckdb.DuckDBPyConnection,
    study: Study,
    line: Line,
    source: SourceFile,
    items: pa.Table,
    name: str,
) -> LongFile:
    """The file read and checked (``items``: the item files' options, which give the
    answers' option texts and domains; ``name``: a name for the file's tables, unique in the
    landing). A bad record is refused: the rules in order (:func:`_record_checks`, then the
    item id, then the language tag), each at its first record."""
    fields, unit = _fields(con, source, name)
    for table_name, table in fields.tables.items():
        con.register(table_name, table)
    records = _records(fields, study, line)
    try:
        _refuse_first_broken(con, records, _record_checks(study), source, unit)
        # the file's language tags and runs, each by its first record
        found = con.execute(
            f"select language, model, run, min(source_row) as first from ({records}) "
            "group by all order by first"
        ).fetchall()
    except duckdb.Error as error:
        if source.suffix != ".parquet":
            raise
        raise _not_parquet(source, error) from None
    finally:
        for table_name in fields.tables:
            con.unregister(table_name)
    source.check_unchanged()  # the records checked are the bytes hashed
    canonical: dict[str, str] = {}
    for tag, _, _, row in found:
        if tag not in canonical:
            canonical[tag] = canonical_language(tag, f"{printable(source.name)}: {unit} {row}")
    compared = set(study.compared)
    # a record set aside by a rule within the file: a key given twice, counted over the
    # file's own columns (no join), where every tag is a language of its own and compared
    clean = (
        f"select count(*) = 0 from (select 1 from ({records}) "
        "group by model, run, task, item_id, language having count(*) > 1)"
        if len(set(canonical.values())) == len(canonical)
        and (not compared or set(canonical.values()) <= compared)
        else None
    )
    order = line["presented_option_order"] or "".join(study.options)
    runs = list(dict.fromkeys((model, run, order) for _, model, run, _ in found))
    # a file of several runs: each run's records read apart, by the columns that allow it
    pushed = [c for c in ("model", "run") if len(runs) > 1 and _as_written(con, fields, c)]
    run_answers = {
        (model, run): _answers(
            _run_records(fields, study, line, (model, run), pushed) if len(runs) > 1 else records,
            study,
            order,
            source,
            canonical,
        )
        for model, run, _ in runs
    }
    tables = {**fields.tables, "items": items}
    return LongFile(source, runs, fields.n_rows, run_answers, tables, clean)


def _run_records(
    fields: Fields, study: Study, line: Line, run: tuple[str, str], pushed: list[str]
) -> str:
    """SQL: the records of one run of a file that holds several. The conditions on the
    ``pushed`` columns (those the file gives as the reader takes them: :func:`_as_written`)
    are on the fields themselves, so DuckDB skips the row groups of other runs."""
    wanted = {"model": run[0], "run": run[1]}
    raw = " and ".join(f"{column} = {sql_literal(wanted[column])}" for column in pushed)
    kept = _records(fields, study, line, raw)
    model, run_name = sql_literal(run[0]), sql_literal(run[1])
    return f"select * from ({kept}) where model = {model} and run = {run_name}"


def _as_written(con: duckdb.DuckDBPyConnection, fields: Fields, column: str) -> bool:
    """Whether every record of the file gives ``column`` as the reader takes it (present,
    not blank, no blanks around it)."""
    for table_name, table in fields.tables.items():
        con.register(table_name, table)
    (clean,) = first_row(
        con,
        f"select coalesce(bool_and({column} is not null and {column} <> '' "
        f"and {column} = trim({column})), false) from ({fields.sql})",
    ) or (False,)
    for table_name in fields.tables:
        con.unregister(table_name)
    return bool(clean)


def _answers(
    records: str, study: Study, order: str, source: SourceFile, languages: dict[str, str]
) -> str:
    """SQL: the answers of the checked ``records``, with ``model`` and ``variant``
    (``languages``: each language tag with its canonical form; the ``items`` relation must
    be registered where it is read)."""
    tags = ", ".join(f"({sql_literal(tag)}, {sql_literal(canonical)})" for tag, canonical in
                     languages.items())  # fmt: skip
    # the option texts in the order they were presented (DCBA: the first is the item's D)
    texts = ", ".join(
        f"max(option_text) filter (where option_key = {sql_literal(key)}) as text_{position}"
        for position, key in enumerate(order, start=1)
    )
    positions = ", ".join(f"t.text_{p}" for p in range(1, len(order) + 1))
    return f"""
        with languages (language, canonical) as (values {tags}),
        -- one label, domain and text per option for each item and language
        item_texts as (
            select
                task, item_id, language,
                any_value(domain_label) as domain_label,
                any_value(domain) as domain,
                {texts}
            from items
            group by all
        ),
        with_texts as (
            select
                r.source_row, r.model, r.run, r.task, r.item_id,
                l.canonical as language,
                coalesce(r.answer, '') as raw_answer,
                r.gold as gold_option,
                {sql_literal(order)} as presented_order,
                t.domain_label,
                t.domain,
                {positions}
            from ({records}) as r
            inner join languages as l using (language)
            -- the item files hold the study's task only: another task's items have none
            left join item_texts as t
                on t.task = r.task
                and t.item_id = r.item_id
                and t.language = l.canonical
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
            null::smallint as n_choices,
            domain_label,
            domain,
            'answer' as source_column,
            {sql_literal(source.name)} as source_file,
            source_row,
            {sql_literal(source.content_hash)} as content_hash
        from ({normalised("with_texts", study.options)})
        """
