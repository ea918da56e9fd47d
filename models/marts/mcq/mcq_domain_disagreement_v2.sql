{#- Per run, task and domain: the items of each disagreement type. -#}
with items as (

    select * from {{ ref('int_mcq_items_classified') }}

),

final as (

    select
        run_id,
        model,
        model_revision,
        variant,
        task,
        domain,
        count(*) as n_items,
        count(*) filter (
            where disagreement_type not in ('full_agreement', 'incomplete')
        ) as n_disagree,
        {% for type in var('mcq_disagreement_types') %}
        count(*) filter (where disagreement_type = '{{ type }}') as n_{{ type }},
        {% endfor %}
        count(*) filter (where disagreement_type = 'incomplete') as n_incomplete
    from items
    group by run_id, model, model_revision, variant, task, domain

)

select * from final
