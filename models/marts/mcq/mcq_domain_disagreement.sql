with items as (

    select * from {{ ref('int_mcq_items_classified') }}

),

final as (

    select
        model,
        run,
        domain,
        count(*) as n_items,
        count(*) filter (
            where disagreement_type not in ('all_same', 'incomplete')
        ) as n_disagree,
        {% for type in var('mcq_disagreement_types') %}
        count(*) filter (where disagreement_type = '{{ type }}') as n_{{ type }},
        {% endfor %}
        count(*) filter (where disagreement_type = 'incomplete') as n_incomplete
    from items
    group by model, run, domain

)

select * from final
