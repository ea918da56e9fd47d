{#- Version 1 (deprecated): the study's domain counts in the three-language types. -#}
{{ config(materialized='view') }}

with items as (

    select
        *,
        {{ mcq_v1_type('disagreement_type', 'departing_languages') }} as type_v1
    from {{ ref('fct_mcq_item_agreement', v=2) }}
    where {{ mcq_v1_rows() }}

),

final as (

    select
        model,
        variant as run,
        domain,
        count(*) as n_items,
        count(*) filter (where type_v1 not in ('all_same', 'incomplete')) as n_disagree,
        {% for type in mcq_v1_types() %}
        count(*) filter (where type_v1 = '{{ type }}') as n_{{ type }},
        {% endfor %}
        count(*) filter (where type_v1 = 'incomplete') as n_incomplete
    from items
    group by model, variant, domain

)

select * from final
