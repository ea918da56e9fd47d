{{ config(materialized="view") }}
{#- One row per answer: the wide merged files made long (one row per file, item and
    language), and the records of the long-format files and sample logs, whose domain and
    option texts come from the item files (by item_id and language; the texts in the order
    they were presented). A record that cannot be an answer keeps its reason in
    record_problem: it is quarantined, never counted. -#}
with answer_files as (

    select * from {{ ref('stg_mcq__answer_files') }}

),

answer_records as (

    select * from {{ ref('stg_mcq__answer_records') }}

),

items as (

    select * from {{ ref('stg_mcq__item_files') }}
    where variant = 'base'

),

-- what a normalised answer depends on besides its file: the item files and the domain
-- translations; part of every row's file_version, so changing them renormalises all
inputs_context as (

    select {{ dbt.hash(
        "(select " ~ string_agg_ordered(
            "concat_ws('|', language, item_id, domain, option_a, option_b, option_c, option_d)",
            "','", "language, item_id") ~ " from items)"
        ~ " || (select " ~ string_agg_ordered(
            "concat_ws('|', language, domain_label, domain_en)",
            "','", "language, domain_label")
        ~ " from " ~ ref('stg_mcq__domain_translations') ~ ")"
    ) }} as context

),

wide as (

    {% for lang in var('mcq_languages') %}
    select
        source_file,
        source_row,
        prefix || '_' || upper('{{ lang }}') as source_column,
        model,
        run,
        presented_option_order,
        item_id,
        '{{ lang }}' as language,
        domain_{{ lang }} as domain_label,
        option_a_{{ lang }} as option_a,
        option_b_{{ lang }} as option_b,
        option_c_{{ lang }} as option_c,
        option_d_{{ lang }} as option_d,
        answer_{{ lang }} as answer_raw,
        cast(null as {{ dbt.type_string() }}) as record_problem,
        file_version
    from answer_files
    {% if not loop.last %}union all{% endif %}
    {% endfor %}

),

-- keys answered more than once. Aggregates, not windows: a window over the records would
-- sort every record with its payload (at 10^8 records, tens of GB spilled). Candidates are
-- found by a 64-bit hash of the key (8 bytes a record), then checked on the key itself.
-- A record with a null key part has an earlier problem and takes no part.
record_key_hashes as (

    select {{ key_hash(['model', 'run', 'item_key', 'language']) }} as key_hash
    from answer_records
    where model is not null and run is not null and item_key is not null and language is not null

),

duplicate_key_hashes as (

    select key_hash
    from record_key_hashes
    group by key_hash
    having count(*) > 1

),

duplicate_keys as (

    select model, run, item_key, language
    from answer_records
    where {{ key_hash(['model', 'run', 'item_key', 'language']) }} in (
        select key_hash from duplicate_key_hashes
    )
    group by model, run, item_key, language
    having count(*) > 1

),

-- a later file can make this file's answers duplicates: that changes its version
files_with_duplicates as (

    select answer_records.source_file, count(*) as n_duplicated
    from answer_records
    inner join duplicate_keys
        on answer_records.model = duplicate_keys.model
        and answer_records.run = duplicate_keys.run
        and answer_records.item_key = duplicate_keys.item_key
        and answer_records.language = duplicate_keys.language
    group by answer_records.source_file

),

records_checked as (

    select
        answer_records.*,
        {{ dbt.safe_cast('answer_records.item_key', api.Column.translate_type('bigint')) }}
            as item_id,
        duplicate_keys.model is not null as is_duplicate,
        coalesce(files_with_duplicates.n_duplicated, 0) as n_duplicated_in_file
    from answer_records
    left join duplicate_keys
        on answer_records.model = duplicate_keys.model
        and answer_records.run = duplicate_keys.run
        and answer_records.item_key = duplicate_keys.item_key
        and answer_records.language = duplicate_keys.language
    left join files_with_duplicates
        on answer_records.source_file = files_with_duplicates.source_file

),

records as (

    select
        records_checked.source_file,
        records_checked.source_row,
        records_checked.source_column,
        records_checked.model,
        records_checked.run,
        records_checked.presented_option_order,
        records_checked.item_id,
        records_checked.language,
        items.domain as domain_label,
        {%- for presented in var('mcq_options') %}
        case substr(records_checked.presented_option_order, {{ loop.index }}, 1)
            {%- for original in var('mcq_options') %}
            when '{{ original }}' then items.option_{{ original | lower }}
            {%- endfor %}
        end as option_{{ presented | lower }},
        {%- endfor %}
        records_checked.answer_raw,
        case
            when records_checked.record_problem is not null then records_checked.record_problem
            when coalesce(trim(records_checked.model), '') = ''
                then 'no model (a model column, or the model in mcq_answer_sources)'
            when records_checked.run not in ('base', 'shuffled') or records_checked.run is null
                then 'run is not base or shuffled'
            when records_checked.language not in (
                {%- for lang in var('mcq_languages') %}'{{ lang }}'{{ ', ' if not loop.last }}
                    {% endfor -%}
            ) or records_checked.language is null
                then 'language not one of mcq_languages'
            when records_checked.item_id is null or records_checked.item_id < 1
                then 'item_id is not a positive whole number'
            when records_checked.is_duplicate
                then 'more than one answer for this model, run, item and language'
        end as record_problem,
        records_checked.file_version || '|' || records_checked.n_duplicated_in_file
            as file_version
    from records_checked
    left join items
        on records_checked.item_id = items.item_id
        and records_checked.language = items.language

),

unioned as (

    select * from wide
    union all
    select * from records

),

final as (

    select
        {%- for column in ['source_file', 'source_row', 'source_column', 'model', 'run',
            'presented_option_order', 'item_id', 'language', 'domain_label', 'option_a',
            'option_b', 'option_c', 'option_d', 'answer_raw', 'record_problem'] %}
        unioned.{{ column }},
        {%- endfor %}
        unioned.file_version || '|' || inputs_context.context as file_version
    from unioned
    cross join inputs_context

)

select * from final
