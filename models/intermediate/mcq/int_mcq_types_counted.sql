{#- Items per model and run in each disagreement type, zero where a type does not occur. -#}
with items as (

    select * from {{ ref('int_mcq_items_classified') }}

),

final as (

    select
        model,
        run,
        count(*) as n_items,
        {% for type in var('mcq_disagreement_types') %}
        count(*) filter (where disagreement_type = '{{ type }}') as n_{{ type }},
        {% endfor %}
        count(*) filter (where disagreement_type = 'incomplete') as n_incomplete
    from items
    group by model, run

)

select * from final
