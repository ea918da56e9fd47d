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

records_checked as (

    select
        *,
        {{ dbt.safe_cast('item_key', api.Column.translate_type('bigint')) }} as item_id,
        count(*) over (partition by model, run, item_key, language) as n_same_key
    from answer_records

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
            when records_checked.n_same_key > 1
                then 'more than one answer for this model, run, item and language'
        end as record_problem,
        -- a later file can make this file's answers duplicates: that changes its version
        records_checked.file_version || '|' || sum(
            case when records_checked.n_same_key > 1 then 1 else 0 end
        ) over (partition by records_checked.source_file) as file_version
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
