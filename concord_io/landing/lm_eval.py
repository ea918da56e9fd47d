"""lm-evaluation-harness sample logs (``mcq_answer_sources``, format ``lm_eval``): the files
``--log_samples`` writes, ``<output_path>/<model>/samples_<task>_<date>.jsonl``, one JSON
object per document of a multiple-choice (log-likelihood) task.

Per sample, the option log-likelihoods are ``filtered_resps[i][0]``, else ``resps[i][0][0]``
(the harness writes them as text); the answer is the option with the highest one, the first
on ties, as the harness's ``acc`` does. Every log-likelihood must be a finite number of at
most 0: NaN, an infinity, a positive value or text that is no number refuses the file. The
item is ``doc_id + 1`` (the harness numbers documents from 0; items from 1) or the field the
registry line names in ``item_key``. The option texts (``arguments``, the continuation
without the task's target delimiter, a space unless its results file records another)
give each option's length in characters and bytes.

The sample's ``target`` is its gold (``gold_option``, the item's own key through the
presented order): a whole number is the option's index from 0 (the harness logs an integer
gold as its text) unless the log's samples' own ``acc`` shows that the harness took such
targets for option texts (options that are numbers), other text an option's text, else its
presented letter; a target that names no option of the sample refuses the file, and a
sample without one has no gold.

An item's domain is the item files' where they hold the task's item in the log's language,
else the sample's own ``doc.domain`` (or the document's field the registry line's
``domain_field`` names; text, as the harness's document carries it: belebele's and the
Concord-exported tasks' documents name one); a ``doc.domain`` that is not text
refuses the file. Its English name (``domain``) is the item files', else the label's line in
``mcq_domain_translations`` for the log's language, else the label as written (a harness's
own subject names are written alike in every language); the languages of one item must
agree on it (checked across the logs by the landing).

The run's provenance comes from the harness's ``results_<date>.json`` in the same folder,
where there is one for the task: the model revision (``model_args``), the harness version,
the task hashes and the few-shot count.

The task and language of a log come from its registry line's ``language``, or from its task
name by the line's ``task_pattern`` (``auto``, or ``xcopa_{lang}``): docs/landing.md,
"lm-eval task names".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa

from concord_common.sql import sql_literal
from concord_io.errors import ConcordError, printable
from concord_io.landing.names import (
    ITEM_ID_MAX,
    canonical_language,
    check_name,
    item_id_broken,
    item_id_refused,
    split_task,
    too_many_choices,
    without_language,
)
from concord_io.landing.schemas import Line, Study
from concord_io.landing.sources import (
    Check,
    SourceFile,
    first_row,
    json_lines,
    refuse_first,
    refuse_json_shape,
    with_domains,
)

SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")
FINITE_HINT = "the run is not landed: check the model's dtype and the harness's output"


@dataclass(frozen=True)
class Provenance:
    """What the harness's results file says about a task's run (None where it says nothing)."""

    revision: str | None = None
    harness_version: str | None = None
    n_fewshot: int | None = None
    task_hashes: dict[str, str] = field(default_factory=dict)
    #: what the harness put between the context and each option (the task's config
    #: ``target_delimiter``; a space where the results file does not say)
    target_delimiter: str = " "


def _without_delimiter(expression: str, delimiter: str) -> str:
    """SQL: a continuation (the harness's delimiter, then the option's text) as the option's
    text: the delimiter the results file records, removed once, never assumed a space."""
    if not delimiter:
        return expression
    literal = sql_literal(delimiter)
    return (
        f"(case when starts_with({expression}, {literal}) "
        f"then substr({expression}, {len(delimiter) + 1}) else {expression} end)"
    )


def task_of(source: SourceFile, line: Line) -> tuple[str, str, str]:
    """The harness's task name (``xcloze_en``), the task without its language (``xcloze``)
    and the canonical language: from the sample log's file name and its registry line's
    ``language`` (the task less a trailing ``_<language>``) or ``task_pattern``."""
    found = SAMPLES_NAME.match(source.path.name)
    if not found:
        raise ConcordError(
            f"{printable(source.name)}: not named samples_<task>_<date>.jsonl, as the harness "
            "names its sample logs (the task is read from the name)",
            hint="register the files lm_eval --log_samples wrote, under their own names",
        )
    harness_task = found["task"]
    where = f"mcq_answer_sources: {printable(source.name)}"
    if line["task_pattern"]:
        task, language = split_task(
            harness_task,
            line["task_pattern"],
            where,
            f"set the task_pattern of its line ({printable(line.file)})",
        )
    else:
        language = canonical_language(
            line["language"], f"mcq_answer_sources: {printable(line.file)}"
        )
        task = without_language(harness_task, line["language"])
    # a task read from a file name is held to the rule a task column is
    check_name(task, f"{where} (the task from the file name)", "task")
    # the line maps the harness's task onto one of the study's (concord add lmeval --task)
    return harness_task, line["task"] or task, language


def unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(f"key {repeated[0]} appears more than once in a JSON object")
    return dict(pairs)


def read_results(path: Path, shown: str) -> object:
    """A harness results file (``results_<date>.json``) as JSON, refused in one line naming
    it (``shown``) when it is not readable UTF-8 JSON or repeats a key."""
    try:
        return json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=unique_keys)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise ConcordError(
            f"{printable(shown)}: not a readable results file ({printable(error)})",
            hint="the harness writes it as UTF-8 JSON; restore it or remove it",
        ) from None


def model_args(value: object) -> dict[str, str]:
    """``model_args`` as the harness records it: ``pretrained=org/model,revision=x`` or a
    mapping."""
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items() if v is not None}
    if isinstance(value, str):
        pairs = (part.partition("=") for part in value.split(","))
        return {k.strip(): v.strip() for k, _, v in pairs if k.strip() and v.strip()}
    return {}


def provenance(folder: Path, harness_task: str, label: str) -> Provenance:
    """The provenance of ``harness_task`` from the results files of ``folder`` (none: an
    empty Provenance; two that name the task: refused)."""
    found = []
    for path in sorted(folder.glob("results_*.json")):  # a loop per results file (RESULTS)
        results = read_results(path, f"{path.name} (beside {label})")
        if not isinstance(results, dict):
            continue
        named = {
            key
            for part in ("n-shot", "task_hashes", "configs", "results")
            if isinstance(results.get(part), dict)
            for key in results[part]
        }
        if harness_task in named:
            found.append((path, results))
    if not found:
        return Provenance()
    if len(found) > 1:
        raise ConcordError(
            f"{printable(label)}: results files {', '.join(p.name for p, _ in found)} both "
            f"record task {printable(harness_task)}",
            hint="keep one harness run per output folder (move the other run's files)",
        )
    _, results = found[0]
    shots = (results.get("n-shot") or {}).get(harness_task)
    version = results.get("lm_eval_version")
    hashes = results.get("task_hashes") or {}
    config = (results.get("configs") or {}).get(harness_task)
    delimiter = config.get("target_delimiter", " ") if isinstance(config, dict) else " "
    return Provenance(
        target_delimiter=delimiter if isinstance(delimiter, str) else " ",
        revision=model_args((results.get("config") or {}).get("model_args")).get("revision"),
        harness_version=None if version is None else str(version),
        n_fewshot=shots if isinstance(shots, int) and not isinstance(shots, bool) else None,
        task_hashes={str(k): str(v) for k, v in hashes.items()} if isinstance(hashes, dict) else {},
    )


#: A sample's ``target`` that names no option of the sample: the gold would be guessed.
TARGET_HINT = (
    "the harness logs the gold as the option's index from 0, or its text; restore the log "
    "as it wrote it"
)
TARGET_CHECKS = [
    Check(
        "target_type not in ('NULL', 'VARCHAR', 'UBIGINT', 'BIGINT')",
        "'target'",
        "'target ' || target_text || ' is not one option''s index or text'",
        TARGET_HINT,
    ),
    Check(
        "not target_is_index and target_type = 'VARCHAR' and gold_position is null",
        "'target'",
        "'target ' || target_text || ' is neither an option''s index (from 0), its text, "
        "nor its letter'",
        TARGET_HINT,
    ),
    Check(
        "target_is_index and coalesce(gold_position not between 1 and len(lls), true)",
        "'target'",
        "'target index ' || target_text || ' is out of range: the sample has ' || len(lls) "
        "|| ' option(s), numbered from 0'",
        TARGET_HINT,
    ),
]


def _digits_are_texts(con: duckdb.DuckDBPyConnection, relation: str, delimiter: str) -> bool:
    """Whether the log's targets written in digits are option texts, not indexes: the
    harness logs every target as text, and a task whose options are numbers (``2``, ``4``)
    has targets that read both ways. The harness's own verdict, each sample's ``acc`` (1 when
    the option it picked, the first with the highest log-likelihood, is the gold), settles
    it: the texts, when some sample's ``acc`` agrees with the gold read as a text and not as
    an index, and none the other way round; else, as before, indexes."""
    strip = _without_delimiter("c", delimiter)
    found = first_row(
        con,
        f"""
        select
            count(*) filter (where text_fits and not index_fits),
            count(*) filter (where index_fits and not text_fits)
        from (
            select
                (picked = as_text) = (acc = 1) as text_fits,
                (picked = as_index) = (acc = 1) as index_fits
            from (
                select
                    acc,
                    list_position(lls, list_max(lls)) as picked,
                    try_cast(target_text as bigint) + 1 as as_index,
                    list_position(
                        list_transform(continuations, lambda c: {strip}),
                        target_text
                    ) as as_text
                from {relation}
                where target_type = 'VARCHAR' and regexp_full_match(target_text, '[0-9]+')
                    and acc in (0, 1) and len(lls) = list_count(lls)
            )
            where as_text is not null and as_text <> as_index
        )
        """,
    )
    texts, indexes = found or (0, 0)
    return bool(texts) and not indexes


def _with_gold_position(relation: str, delimiter: str, digits_are_texts: bool = False) -> str:
    """``relation``'s samples with ``gold_position``, the 1-based presented position of the
    gold that ``target`` names (null where the sample has none): a whole number is the
    option's index from 0 (the harness logs an integer gold as its text), but where the
    log's targets in digits are option texts (:func:`_digits_are_texts`) and the text is an
    option's; other text is an option's text (without the task's target delimiter; the
    first that matches, as the harness's ``choices.index``), else a letter (``B``: the
    second option presented)."""
    strip = _without_delimiter("c", delimiter)
    as_text = f"list_position(list_transform(continuations, lambda c: {strip}), target_text)"
    texts_first = f"and {as_text} is null" if digits_are_texts else ""
    return f"""
        select
            *,
            case
                when target_is_index then try_cast(target_text as bigint) + 1
                when target_type = 'VARCHAR' then coalesce(
                    list_position(
                        list_transform(continuations, lambda c: {strip}),
                        target_text
                    ),
                    case
                        when regexp_full_match(target_text, '[A-Z]')
                            and ascii(target_text) - 64 <= len(lls)
                            then ascii(target_text) - 64
                    end
                )
            end as gold_position
        from (
            select
                *,
                coalesce(
                    target_type in ('UBIGINT', 'BIGINT')
                    or (
                        target_type = 'VARCHAR' and regexp_full_match(target_text, '[0-9]+')
                        {texts_first}
                    ),
                    false
                ) as target_is_index
            from {relation}
        )
    """


def read_samples(
    con: duckdb.DuckDBPyConnection,
    study: Study,
    line: Line,
    source: SourceFile,
    task: str,
    language: str,
    delimiter: str = " ",
) -> tuple[pa.Table, pa.Table]:
    """The log's answers in ``task`` and ``language`` (canonical) (with ``model``,
    ``variant`` and ``presented_order``; the domain of each item from the ``items`` relation
    registered on ``con``, else the sample's own, in English through the ``translations``
    relation) and its option scores (without ``run_id``); ``delimiter``: the
    task's ``target_delimiter`` (:class:`Provenance`), before each option's text."""
    order = line["presented_option_order"] or study.option_keys
    item_key = line["item_key"] or "doc_id"
    names = item_key.split(".")
    parents = tuple("$." + ".".join(names[:i]) for i in range(1, len(names)))
    con.register("sample_lines", json_lines(source))
    refuse_json_shape(con, "sample_lines", source.name, parents)
    item_path = sql_literal("$." + item_key)
    domain_field = "doc." + (line["domain_field"] or "domain")
    domain_path = sql_literal("$." + domain_field)
    con.execute(
        f"""
        create or replace temp table samples as
        select
            source_row,
            json_extract_string(line, {item_path}) as item_text,
            json_type(line, {item_path}) as item_type,
            json_extract_string(line, '$.target') as target_text,
            json_type(line, {domain_path}) as domain_type,
            nullif(trim(json_extract_string(line, {domain_path})), '') as sample_domain,
            json_type(line, '$.target') as target_type,
            -- the harness's verdict on the sample (1: its pick is the gold), where it logs one
            try_cast(json_extract_string(line, '$.acc') as double) as acc,
            lls_text,
            case when filtered is not null then 'filtered_resps' else 'resps' end
                as source_column,
            list_transform(lls_text, lambda x: try_cast(x as double)) as lls,
            coalesce(
                nullif(json_extract_string(line, '$.arguments.*.arg_1'), []),
                nullif(json_extract_string(line, '$.arguments[*][1]'), [])
            ) as continuations
        from (
            select
                *,
                nullif(json_extract_string(line, '$.filtered_resps[*][0]'), []) as filtered,
                coalesce(
                    nullif(json_extract_string(line, '$.filtered_resps[*][0]'), []),
                    nullif(json_extract_string(line, '$.resps[*][0][0]'), [])
                ) as lls_text
            from sample_lines
        )
        """
    )
    con.unregister("sample_lines")
    checks = []
    if item_key == "doc_id":
        checks.append(
            Check(
                "item_type is null or item_type not in ('UBIGINT', 'BIGINT') "
                f"or item_text like '-%' or try_cast(item_text as hugeint) >= {ITEM_ID_MAX}",
                "'doc_id'",
                "'doc_id ' || coalesce(item_text, '(missing)') || ' is not a whole number from 0 "
                f"to {ITEM_ID_MAX - 1}'",
                "the harness numbers its documents 0, 1, ...; restore the log as it wrote it",
            )
        )
    checks += [
        Check(
            "domain_type is not null and domain_type not in ('VARCHAR', 'NULL')",
            sql_literal(domain_field),
            f"'{domain_field} is ' || case domain_type when 'OBJECT' then 'an object' "
            "when 'ARRAY' then 'a list' when 'BOOLEAN' then 'true or false' "
            "else 'a number' end || ', not text'",
            "the document's domain is the name of its domain; restore the log as the harness "
            "wrote it",
        ),
        Check(
            "lls_text is null",
            "'filtered_resps'",
            "'no log-likelihoods in filtered_resps or resps'",
            "log the samples of a multiple-choice (log-likelihood) task with --log_samples",
        ),
        Check(
            "list_count(lls) < len(lls)",
            "source_column",
            "'a log-likelihood is not a number: ' || "
            "coalesce(list_filter(lls_text, lambda x: try_cast(x as double) is null)[1], 'null')",
            FINITE_HINT,
        ),
        Check(
            "list_bool_or(list_transform(lls, lambda x: isnan(x)))",
            "source_column",
            "'a log-likelihood is NaN'",
            FINITE_HINT,
        ),
        Check(
            "list_bool_or(list_transform(lls, lambda x: isinf(x)))",
            "source_column",
            "'a log-likelihood is infinite: ' || "
            "list_filter(lls_text, lambda x: isinf(try_cast(x as double)))[1]",
            FINITE_HINT,
        ),
        Check(
            "list_bool_or(list_transform(lls, lambda x: x > 0))",
            "source_column",
            "'a log-likelihood is positive: ' || list_filter(lls_text, "
            "lambda x: try_cast(x as double) > 0)[1] || ' (a log-likelihood is at most 0)'",
            FINITE_HINT,
        ),
        Check(
            "continuations is null or len(continuations) <> len(lls)",
            "'arguments'",
            "'arguments give ' || coalesce(len(continuations), 0) || ' option text(s) for ' "
            "|| len(lls) || ' log-likelihood(s)'",
            "restore the log as the harness wrote it (arguments hold each option's text)",
        ),
    ]
    refuse_first(con, "samples", checks, source.name, unit="line")
    texts = _digits_are_texts(con, "samples", delimiter)
    with_gold = _with_gold_position("samples", delimiter, texts)
    con.execute(f"create or replace temp table samples as {with_gold}")
    refuse_first(con, "samples", TARGET_CHECKS, source.name, unit="line")
    if item_key == "doc_id":
        item_id = "(item_text::hugeint + 1)::varchar"
    else:
        bad = first_row(
            con,
            f"select source_row, item_text from samples where {item_id_broken('item_text')} "
            "order by source_row limit 1",
        )
        if bad:
            raise item_id_refused(f"{printable(source.name)}: line {bad[0]}", bad[1], item_key)
        item_id = "item_text"
    common = f"""
            {sql_literal(task)} as task,
            {item_id} as item_id,
            {sql_literal(language)} as language
    """
    provenance_columns = f"""
            {sql_literal(source.name)} as source_file,
            source_row,
            {sql_literal(source.content_hash)} as content_hash
    """
    con.execute(
        f"""
        create or replace temp table choices as
        select
            *,
            -- the first option with the highest log-likelihood, as the harness's acc
            list_position(lls, list_max(lls)) as position,
            len(lls) <= {len(order)} as fits
        from samples
        """
    )
    too_many = sql_literal(too_many_choices(line["presented_option_order"], order))
    records = f"""
            select
                {sql_literal(line["model"])} as model,
                {sql_literal(line["run"])} as variant,
                {sql_literal(order)} as presented_order,
                {common},
                case when fits then substr({sql_literal(order)}, position, 1) end
                    as chosen_option,
                -- the presented letter (a choice beyond Z: its position)
                case when position <= 26 then chr(64 + position) else position::varchar end
                    as raw_answer,
                case when not fits then {too_many} end
                    as invalid_reason,
                case when fits then substr({sql_literal(order)}, gold_position::integer, 1) end
                    as gold_option,
                len(lls)::smallint as n_choices,
                source_column,
                {provenance_columns},
                sample_domain
            from choices
    """
    answers = con.sql(with_domains(records)).to_arrow_table()
    scores = con.sql(
        f"""
        select
            {common},
            substr({sql_literal(order)}, option_position, 1) as option_key,
            option_position::smallint as presented_position,
            lls[option_position] as loglik,
            length(option_text)::integer as option_chars,
            strlen(option_text)::integer as option_bytes,
            {provenance_columns}
        from (
            select
                *,
                {_without_delimiter("continuations[option_position]", delimiter)} as option_text
            from (
                select *, unnest(generate_series(1, len(lls))) as option_position
                from choices
                where fits
            )
        )
        order by source_row, option_position
        """
    ).to_arrow_table()
    con.execute("drop table choices; drop table samples")
    return answers, scores
