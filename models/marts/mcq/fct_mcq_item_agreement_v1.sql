{#- Version 1 (deprecated): the study's items with one column per language, as 0.1
    published them (macros/mcq_v1.sql). -#}
{{ config(materialized='view') }}

with items as (

    select * from {{ ref('fct_mcq_item_agreement', v=2) }}
    where {{ mcq_v1_rows() }}

),

answers as (

    select * from {{ ref('fct_mcq_answers') }}
    where {{ mcq_v1_rows() }}

),

pivoted as (

    select
        run_id,
        item_id,
        {% for lang in mcq_v1_languages() %}
        max(case when language = '{{ lang }}' then substr(
            '{{ var("mcq_options") | join("") }}', presented_position, 1
        ) end) as answer_{{ lang }},
        max(case when language = '{{ lang }}' then chosen_option end)
            as original_option_{{ lang }}{{ ',' if not loop.last }}
        {% endfor %}
    from answers
    group by run_id, item_id

),

final as (

    select
        items.model,
        items.variant as run,
        cast(items.item_id as bigint) as item_id,
        items.domain,
        {% for lang in mcq_v1_languages() %}
        pivoted.answer_{{ lang }},
        {% endfor %}
        {% for lang in mcq_v1_languages() %}
        pivoted.original_option_{{ lang }},
        {% endfor %}
        items.full_agreement,
        {{ mcq_v1_type('items.disagreement_type', 'items.departing_languages') }}
            as disagreement_type
    from items
    inner join pivoted using (run_id, item_id)

)

select * from final
