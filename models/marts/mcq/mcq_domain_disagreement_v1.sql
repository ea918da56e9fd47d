{#- Version 1 (deprecated): the study's domain counts in the three-language types. -#}
{{ config(materialized='view') }}

with counted as (

    {{ mcq_v1_type_counts(by=['domain']) }}

),

final as (

    select
        model,
        variant as run,
        domain,
        n_items,
        n_disagree,
        {% for type in mcq_v1_types() %}
        n_{{ type }},
        {% endfor %}
        n_incomplete
    from counted

)

select * from final
