{#- Items per run and task in each disagreement type, zero where a type does not occur. -#}
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
        max(n_languages) as n_languages,
        count(*) as n_items,
        {% for type in var('mcq_disagreement_types') %}
        count(*) filter (where disagreement_type = '{{ type }}') as n_{{ type }},
        {% endfor %}
        count(*) filter (where disagreement_type = 'incomplete') as n_incomplete
    from items
    group by run_id, model, model_revision, variant, task

)

select * from final
