"""The study's wide merged answer files (``mcq_answer_registry``): one row per item (its row
position is the item id), and per language its domain label, the option texts as presented
(``A_EN`` ...) and the model's answer (``<prefix>_EN``).

Each file is one run, read for the languages of ``mcq_languages`` (when that is empty, for
those of its ``Domain_<LANG>`` columns). Beyond the strict CSV checks, the languages of a
row must be the same item: every domain label must have an English name
(``mcq_domain_translations``) and the English names of a row must agree; otherwise the file
is refused naming the row.
"""

from __future__ import annotations

import duckdb

from concord_common.sql import sql_identifier, sql_literal
from concord_io.errors import ConcordError, printable
from concord_io.landing.names import canonical_language, normalised
from concord_io.landing.schemas import Line, Study
from concord_io.landing.sources import (
    SourceFile,
    check_header,
    first_row,
    read_csv,
    refuse_unknown_domains,
    with_rows,
)

DOMAIN_PREFIX = "Domain_"


def read_wide(
    con: duckdb.DuckDBPyConnection, study: Study, line: Line, source: SourceFile
) -> tuple[str, int, str, bool]:
    """The file parsed and checked: the SQL of its answers on ``con`` (in no order), their
    number, the SQL of each one's place in reading order (by row, then language, from 0),
    and whether no answer can be set aside (its languages all compared, each a language of
    its own: an item is a row, so no key is given twice);
    :func:`release_wide` lets the file go once they are taken. The answers: ``task``,
    ``item_id``, ``language``, ``chosen_option``, ``raw_answer``, ``invalid_reason``,
    ``domain_label`` (the row's label in that language), ``domain`` (its English name),
    ``source_column`` (``<PREFIX>_<LANG>``), ``source_file``, ``source_row``,
    ``content_hash`` (the ``translations`` relation must be registered on ``con``)."""
    prefix, order = line["prefix"], line["presented_option_order"]
    data = source.read_bytes()
    if study.languages:
        languages = study.languages
        checked = read_csv(data, source.name, required=_required(languages, study.options, prefix))
    else:
        checked = read_csv(data, source.name)
        languages = _header_languages(checked.header, source.name)
        check_header(
            checked.header, source.name, required=_required(languages, study.options, prefix)
        )
    del data  # the table holds the records: the bytes are let go
    con.register("wide_file", with_rows(checked.table))
    where = f"mcq_answer_registry: {printable(line.file)}"
    parts = []
    for lang, (domain, options, answer) in _columns(languages, study.options, prefix).items():
        tag_column = "mcq_languages" if study.languages else domain
        texts = ", ".join(
            f"{sql_identifier(name)} as text_{i}" for i, name in enumerate(options, 1)
        )
        prompt_column = f"Prompt_{lang.upper()}"
        prompt = (
            sql_identifier(prompt_column) if prompt_column in checked.header else "null::varchar"
        )
        parts.append(
            f"""
            select
                source_row,
                {sql_literal(canonical_language(lang, where, column=tag_column))} as language,
                {sql_literal(lang)} as language_as_written,
                {sql_identifier(domain)} as domain_label,
                {sql_literal(domain)} as domain_column,
                {sql_literal(answer)} as answer_column,
                {sql_identifier(answer)} as raw_answer,
                {texts},
                {prompt} as prompt,
                {sql_literal(prompt_column)} as prompt_column,
                {sql_literal(order)} as presented_order
            from wide_file
            """
        )
    # a view over the parsed file, not a table: the checks and the answers each read the
    # rows they need from Arrow's columns (a copy of every row's option texts cost 0.29 s
    # of a 100 000-row file's 0.9 s)
    con.execute("create or replace temp view wide_rows as " + " union all ".join(parts))
    refuse_unknown_domains(con, "wide_rows", source.name)
    _refuse_misaligned(con, source.name, languages)
    _refuse_other_items(con, source.name, study.task)
    _refuse_other_domains(con, source.name, study.task)
    return (
        f"""
        select
            {sql_literal(study.task)} as task,
            n.source_row::varchar as item_id,
            n.language,
            n.chosen_option,
            n.raw_answer,
            n.invalid_reason,
            null::varchar as gold_option,
            null::smallint as n_choices,
            n.domain_label,
            t.domain_en as domain,
            n.answer_column as source_column,
            {sql_literal(source.name)} as source_file,
            n.source_row,
            {sql_literal(source.content_hash)} as content_hash
        from ({normalised("wide_rows", study.options)}) as n
        inner join translations as t
            on t.language = n.language and t.domain_label = n.domain_label
        """,
        checked.table.num_rows * len(languages),
        _position(languages, where),
        # the languages read are the study's (or, when it names none, every one the file
        # has: then none is outside it)
        len({canonical_language(lang, where) for lang in languages}) == len(languages),
    )


def _position(languages: list[str], where: str) -> str:
    """SQL: an answer's place among its file's, from 0, in reading order (by row, then
    language)."""
    ordered = sorted(canonical_language(lang, where) for lang in languages)
    listed = "[" + ", ".join(map(sql_literal, ordered)) + "]"
    return f"(source_row - 1) * {len(ordered)} + list_position({listed}, language) - 1"


def release_wide(con: duckdb.DuckDBPyConnection) -> None:
    """Let go of the file :func:`read_wide` read (its answers taken)."""
    con.execute("drop view wide_rows")
    con.unregister("wide_file")


def _columns(
    languages: list[str], options: list[str], prefix: str
) -> dict[str, tuple[str, list[str], str]]:
    """Language as written (in the var or the header) -> its domain, option text and answer
    columns."""
    return {
        lang: (
            f"{DOMAIN_PREFIX}{lang.upper()}",
            [f"{option}_{lang.upper()}" for option in options],
            f"{prefix}_{lang.upper()}",
        )
        for lang in languages
    }


def _required(languages: list[str], options: list[str], prefix: str) -> list[str]:
    columns = _columns(languages, options, prefix).values()
    return [name for domain, texts, answer in columns for name in (domain, *texts, answer)]


def _header_languages(header: list[str], file: str) -> list[str]:
    """The languages of a file's ``Domain_<LANG>`` columns, in header order: a wide file's
    languages when the study declares none."""
    languages = [name[len(DOMAIN_PREFIX) :] for name in header if name.startswith(DOMAIN_PREFIX)]
    if not languages:
        raise ConcordError(
            f"{printable(file)}, header row: no {DOMAIN_PREFIX}<LANG> column (mcq_languages is "
            f"empty, so a wide file's languages are those of its {DOMAIN_PREFIX}<LANG> "
            f"columns; header: {printable(', '.join(header))})",
            hint="give the study's languages (--vars '{mcq_languages: [en, it, fa]}'), or "
            "name the file's columns Domain_EN, A_EN ... <PREFIX>_EN",
        )
    return languages


def _refuse_other_items(con: duckdb.DuckDBPyConnection, file: str, task: str) -> None:
    """A wide file's rows are the items by position (row 1 is item 1): where the file gives
    a row's prompt (``Prompt_<LANG>``) and the item files hold that item in that language,
    the two must be the same text, or the row would be counted as another item's answer.
    Names are not identities: the position is checked against what the item files say."""
    found = first_row(
        con,
        f"""
        select w.source_row, w.prompt_column, w.prompt, i.question
        from wide_rows as w
        inner join (
            select item_id, language, any_value(question) as question
            from items
            where task = {sql_literal(task)}
            group by item_id, language
        ) as i
            on i.item_id = w.source_row::varchar and i.language = w.language
        where w.prompt is not null and w.prompt <> i.question
        order by w.source_row, w.prompt_column
        limit 1
        """,
    )
    if found:
        row, column, prompt, question = found
        raise ConcordError(
            f"{printable(file)}: row {row}, column {printable(column)}: the prompt is not item "
            f"{row}'s in the item files ({printable(repr(prompt))}; the item files: "
            f"{printable(repr(question))})",
            hint="a wide file's rows are the items in the item files' order: put its rows in "
            "that order (or correct the prompt)",
        )


def _refuse_other_domains(con: duckdb.DuckDBPyConnection, file: str, task: str) -> None:
    """A wide file's row is its item by position: where the item files hold that item, the
    row's domain (in English) must be the item's, or the row would be counted under another
    item's domain (its languages agree with each other: :func:`_refuse_misaligned`)."""
    found = first_row(
        con,
        f"""
        select w.source_row, w.domain_column, w.domain_label, t.domain_en, i.domain
        from wide_rows as w
        inner join translations as t
            on t.language = w.language and t.domain_label = w.domain_label
        inner join (
            select item_id, any_value(domain) as domain
            from items
            where task = {sql_literal(task)}
            group by item_id
        ) as i
            on i.item_id = w.source_row::varchar
        where t.domain_en <> i.domain
        order by w.source_row, w.domain_column
        limit 1
        """,
    )
    if found:
        row, column, label, english, item_domain = found
        raise ConcordError(
            f"{printable(file)}: row {row}, column {printable(column)}: domain "
            f"{printable(repr(label))} ({printable(english)}) is not item {row}'s in the item "
            f"files ({printable(item_domain)})",
            hint="a wide file's rows are the items in the item files' order: put its rows in "
            "that order (or correct the domain)",
        )


def _refuse_misaligned(con: duckdb.DuckDBPyConnection, file: str, languages: list[str]) -> None:
    listed = "[" + ", ".join(map(sql_literal, languages)) + "]"
    joined = """
        from wide_rows as w
        inner join translations as t
            on t.language = w.language and t.domain_label = w.domain_label
        """
    # the first misaligned row by a plain aggregate over every row; its domains, for the
    # message, spelled out for that row alone
    bad = first_row(
        con,
        f"select min(source_row) from (select w.source_row {joined} group by w.source_row "
        "having min(t.domain_en) <> max(t.domain_en))",
    )
    if bad is None or bad[0] is None:
        return
    found = first_row(
        con,
        f"""
        select
            w.source_row,
            string_agg(w.language || '=' || t.domain_en, ', '
                order by list_position({listed}, w.language_as_written)) as domains
        {joined}
        where w.source_row = {int(bad[0])}
        group by w.source_row
        """,
    )
    if found:
        row, domains = found
        raise ConcordError(
            f"{printable(file)}: Misaligned rows: the languages of one row are not the same "
            f"item: source_row={row} ({printable(domains)})",
            hint="the row's languages must be translations of one item (same domain); "
            "realign the file's rows",
        )
