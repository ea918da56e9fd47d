{#- Normalising the answer text that LLM pipelines write into one option letter.
    Accepted: a letter in any case with padding, markdown emphasis or quotes (` b `, `**B**`),
    a letter with a bracket or full stop (`B)`, `(B)`, `B.`), a labelled letter
    (`Answer: B`, `Option B`), and the text of one of the item's options. Anything else is
    not an answer and gets a reason.
    The macros take the raw answer and return a column expression; the model computes the
    letter form and the text key once per row and passes them on. -#}

{#- The single letter the answer is written as, '' when it is not written as a letter.
    Bare letters (most answers) skip the regular expressions. -#}
{% macro mcq_answer_letter_form(raw) -%}
    case
        when {{ raw }} in ('A', 'B', 'C', 'D') then {{ raw }}
        else regexp_extract(
            upper(trim({{ regexp_replace_all('coalesce(' ~ raw ~ ", '')", '[\s*_`"\']+', ' ') }})),
            {{ regex_literal('^(?:(?:ANSWER|OPTION|CHOICE|RISPOSTA)\s*[:.\-]?\s*)?\(?([A-Z])\)?[.):]?$') }},
            1
        )
    end
{%- endmacro %}

{#- Text compared case- and space-insensitively (answer against option text). -#}
{% macro mcq_text_key(text) -%}
    lower(trim({{ regexp_replace_all('coalesce(' ~ text ~ ", '')", '\\s+', ' ') }}))
{%- endmacro %}

{#- The presented letter, or null. `letter_form` and `answer_key` are the two columns
    above; option texts are compared only when the answer is not written as a letter. -#}
{% macro mcq_normalised_answer(letter_form, answer_key, option_a, option_b, option_c, option_d) -%}
    case
        when {{ letter_form }} in ('A', 'B', 'C', 'D') then {{ letter_form }}
        when {{ letter_form }} <> '' or {{ answer_key }} = '' then null
        when (
            ({{ answer_key }} = {{ mcq_text_key(option_a) }})::int
            + ({{ answer_key }} = {{ mcq_text_key(option_b) }})::int
            + ({{ answer_key }} = {{ mcq_text_key(option_c) }})::int
            + ({{ answer_key }} = {{ mcq_text_key(option_d) }})::int
        ) <> 1 then null
        when {{ answer_key }} = {{ mcq_text_key(option_a) }} then 'A'
        when {{ answer_key }} = {{ mcq_text_key(option_b) }} then 'B'
        when {{ answer_key }} = {{ mcq_text_key(option_c) }} then 'C'
        when {{ answer_key }} = {{ mcq_text_key(option_d) }} then 'D'
    end
{%- endmacro %}

{#- Why an answer is not a letter (null when it is one). -#}
{% macro mcq_invalid_reason(answer, letter_form, answer_key) -%}
    case
        when {{ answer }} is not null then null
        when {{ answer_key }} = '' then 'empty'
        when {{ letter_form }} <> '' then 'letter_out_of_range'
        when {{ regexp_contains(answer_key, '(invalid|error|fail|retr|timeout|n/a)') }}
            then 'pipeline_error'
        else 'unrecognised'
    end
{%- endmacro %}

{#- The original option a presented letter points to: presented A is the first letter of
    the presented order (DCBA: presented A = original D). -#}
{% macro mcq_original_option(letter, presented_option_order) -%}
    case
        when {{ letter }} is not null
            then substr({{ presented_option_order }}, ascii({{ letter }}) - ascii('A') + 1, 1)
    end
{%- endmacro %}

{#- The five complete disagreement types partition the complete items; an item with a
    language missing or invalid is `incomplete`. (The study's notebooks let every
    agreeing item fall through to "All different"; here all_same is its own type.) -#}
{% macro mcq_disagreement_type(answer_en, answer_it, answer_fa) -%}
    case
        when {{ answer_en }} is null or {{ answer_it }} is null or {{ answer_fa }} is null
            then 'incomplete'
        when {{ answer_en }} = {{ answer_it }} and {{ answer_it }} = {{ answer_fa }}
            then 'all_same'
        when {{ answer_en }} = {{ answer_it }} then 'fa_diverged'
        when {{ answer_en }} = {{ answer_fa }} then 'it_diverged'
        when {{ answer_it }} = {{ answer_fa }} then 'en_diverged'
        else 'all_different'
    end
{%- endmacro %}
