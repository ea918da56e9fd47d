"""The answer text LLM pipelines write, as the item's own option key (``chosen_option``), or
why it is none (``invalid_reason``), in one SQL pass (DuckDB, over Arrow).

Accepted: a bare option key, a letter in any case with padding, markdown emphasis or quotes
(`` b ``, ``**B**``), a letter with a bracket or full stop (``B)``, ``(B)``, ``B.``), a
labelled letter (``Answer: B``, ``Option B``), and the text of exactly one of the options as
presented (case and runs of blanks ignored). The letter is the presented one: the presented
order (``DCBA``: presented A is the item's D) gives the item's own key.

Reasons (published downstream: ``dq_quarantine`` says ``mcq answer <reason>``):
``empty``, ``letter_out_of_range`` (a letter that is no option, ``E``), ``pipeline_error``
(the text of a failed call: invalid, error, fail, retr(y), timeout, n/a) and ``unrecognised``.
"""

from __future__ import annotations

from concord_common.sql import sql_literal

REASONS = ("empty", "letter_out_of_range", "pipeline_error", "unrecognised")
LETTER_PATTERN = r"^(?:(?:ANSWER|OPTION|CHOICE|RISPOSTA)\s*[:.\-]?\s*)?\(?([A-Z])\)?[.):]?$"
PIPELINE_ERROR_PATTERN = r"(invalid|error|fail|retr|timeout|n/a)"


def _text_key(expression: str) -> str:
    """Text compared case- and blank-insensitively."""
    return f"lower(trim(regexp_replace(coalesce({expression}, ''), '\\s+', ' ', 'g')))"


def normalised(relation: str, options: list[str]) -> str:
    """``relation`` (columns ``raw_answer``, ``presented_order`` and ``text_1`` ...
    ``text_<n>``, the option texts in presented order, null where not known) with
    ``chosen_option`` and ``invalid_reason`` added."""
    keys = ", ".join(sql_literal(option) for option in options)
    all_keys = sql_literal("".join(options))
    text_keys = [_text_key(f"text_{i}") for i in range(1, len(options) + 1)]
    matches = " + ".join(f"(answer_key = {key})::int" for key in text_keys)
    by_text = "\n".join(
        f"            when answer_key = {key} then {sql_literal(option)}"
        for key, option in zip(text_keys, options, strict=True)
    )
    return f"""
    with keyed as (
        select
            *,
            case
                when raw_answer in ({keys}) then raw_answer
                else regexp_extract(
                    upper(trim(regexp_replace(
                        coalesce(raw_answer, ''), '[\\s*_`"'']+', ' ', 'g'))),
                    {sql_literal(LETTER_PATTERN)},
                    1
                )
            end as letter_form,
            case
                when raw_answer in ({keys}) then lower(raw_answer)
                else {_text_key("raw_answer")}
            end as answer_key
        from {relation}
    ),
    presented as (
        select
            *,
            case
                when letter_form in ({keys}) then letter_form
                when letter_form <> '' or answer_key = '' then null
                when {matches} <> 1 then null
{by_text}
            end as presented_answer
        from keyed
    )
    select
        * exclude (letter_form, answer_key, presented_answer),
        -- presented A is the first key of the presented order
        case
            when presented_answer is not null
                then substr(presented_order, strpos({all_keys}, presented_answer), 1)
        end as chosen_option,
        case
            when presented_answer is not null then null
            when answer_key = '' then 'empty'
            when letter_form <> '' then 'letter_out_of_range'
            when regexp_matches(answer_key, {sql_literal(PIPELINE_ERROR_PATTERN)})
                then 'pipeline_error'
            else 'unrecognised'
        end as invalid_reason
    from presented
    """
