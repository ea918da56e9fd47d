"""The item files (``mcq_item_files``) as the landing's ``items`` table, and the domain
translations (``mcq_domain_translations``) that give every domain its English name.

An item file has one row per item (its row position is the item id: the files have no id
column) with the columns ``Domain``, ``Prompt`` and one per option key, read by name, so an
order-control file (options stored D, C, B, A) puts each text under its own key. The
order-control files hold the same items as the base files: a key (task, item, language,
option) given twice lands once when both rows say the same, and is refused, naming both
rows, when they differ (the gold included).

Where the item's registry line names a ``gold_column``, that column holds each item's gold
as its own option key (a blank cell: no gold), landed as ``gold`` on every option row of the
item; a value that is no option key is refused naming the row.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from concord_common.sql import sql_identifier, sql_literal
from concord_io.errors import ConcordError, printable
from concord_io.landing import schemas
from concord_io.landing.names import canonical_language
from concord_io.landing.schemas import Line, Study
from concord_io.landing.sources import (
    Check,
    SourceFile,
    first_row,
    gold_check,
    load,
    read_csv,
    refuse_first,
    refuse_unknown_domains,
    with_rows,
)


def read_item_file(
    con: duckdb.DuckDBPyConnection, study: Study, line: Line, order: int
) -> pa.Table:
    """One item file as rows of the items table (plus ``file_order``, for the duplicates)."""
    source: SourceFile = load(study.items_dir, line.file)
    where = f"mcq_item_files: {printable(line.file)}"
    language = canonical_language(line["language"], where)
    gold_column = line["gold_column"]
    required = ["Domain", "Prompt", *study.options, *([gold_column] if gold_column else [])]
    checked = read_csv(source.read_bytes(), source.name, required=required)
    con.register("item_file", with_rows(checked.table))
    # a blank gold cell: the item has no gold
    gold = f"nullif({sql_identifier(gold_column)}, '')" if gold_column else "null::varchar"
    con.execute(
        f"""
        create or replace temp table item_rows as
        select
            source_row,
            {sql_literal(language)} as language,
            "Domain" as domain_label,
            'Domain' as domain_column,
            null as answer_column,
            "Prompt" as question,
            {gold} as gold,
            {", ".join(f'"{option}" as "option_{option}"' for option in study.options)}
        from item_file
        """
    )
    hint = (
        "write the gold as the item's own option key (the column it is under), or leave "
        "the cell blank for an item without one"
    )
    blank = " ".join(
        f"when {sql_literal(option)} then coalesce(trim(\"option_{option}\"), '') = ''"
        for option in study.options
    )
    # the gold names an option the item has: one with text in this language (probe mcq
    # refuses the same file: a blank option is one the item does not have)
    gold_blank = Check(
        f"case gold {blank} else false end",
        sql_literal(gold_column),
        "'gold ' || gold || ' names option ' || gold || ', which is blank in this file'",
        "write the gold as one of the item's options that has text, or fill in that option",
    )
    checks = [gold_check(study.options, gold_column, hint), gold_blank]
    refuse_first(con, "item_rows", checks, source.name)
    refuse_unknown_domains(con, "item_rows", source.name)
    options = " union all ".join(
        f"select {sql_literal(option)} as option_key, {i} as option_order"
        for i, option in enumerate(study.options)
    )
    texts = " ".join(
        f'when {sql_literal(option)} then r."option_{option}"' for option in study.options
    )
    table = con.sql(
        f"""
        select
            {sql_literal(study.task)} as task,
            r.source_row::varchar as item_id,
            r.language,
            o.option_key,
            r.question,
            case o.option_key {texts} end as option_text,
            r.gold,
            r.domain_label,
            t.domain_en as domain,
            {sql_literal(source.name)} as source_file,
            r.source_row,
            {sql_literal(source.content_hash)} as content_hash,
            {order} as file_order
        from item_rows as r
        cross join ({options}) as o
        inner join translations as t
            on t.language = r.language and t.domain_label = r.domain_label
        order by r.source_row, o.option_order
        """
    ).to_arrow_table()
    con.unregister("item_file")
    con.execute("drop table item_rows")
    return table


def read_items(con: duckdb.DuckDBPyConnection, study: Study, lines: list[Line]) -> pa.Table:
    """Every registered item file as one items table (schema ``items``); the ``translations``
    relation must be registered on ``con``."""
    parts = [read_item_file(con, study, line, order) for order, line in enumerate(lines)]
    if not parts:
        return schemas.ITEMS.empty_table()
    con.register("all_items", pa.concat_tables(parts))
    conflict = first_row(
        con,
        """
        with numbered as (
            select *, row_number() over (
                partition by task, item_id, language, option_key
                order by file_order, source_row
            ) as copy
            from all_items
        )
        select
            a.item_id, a.language, a.option_key,
            a.source_file, a.source_row, b.source_file, b.source_row,
            case
                when a.question is distinct from b.question then 'question'
                when a.option_text is distinct from b.option_text then 'option text'
                when a.gold is distinct from b.gold then 'gold'
                else 'domain'
            end as what
        from numbered as a
        inner join numbered as b
            using (task, item_id, language, option_key)
        where a.copy = 1 and b.copy > 1
            and (a.question, a.option_text, a.gold, a.domain)
                is distinct from (b.question, b.option_text, b.gold, b.domain)
        order by b.file_order, b.source_row, b.option_key
        limit 1
        """,
    )
    if conflict:
        item, language, option, file_a, row_a, file_b, row_b, what = conflict
        raise ConcordError(
            f"items: {printable(file_a)} row {row_a} and {printable(file_b)} row {row_b} give "
            f"item {item} ({language}), option {option} a different {what}",
            hint="an order-control file holds the same items as its base file, in the same "
            "rows; correct the one that differs",
        )
    table = con.sql(
        """
        select * exclude (file_order, copy) from (
            select *, row_number() over (
                partition by task, item_id, language, option_key
                order by file_order, source_row
            ) as copy
            from all_items
        )
        where copy = 1
        order by task, language, source_row, option_key
        """
    ).to_arrow_table()
    con.unregister("all_items")
    return schemas.conform("items", table)
