{#- Two runs of different models (or revisions) side by side on the same items: per task,
    variant, unordered pair of runs (run_id_a < run_id_b) and item that both answered
    completely (a valid answer in every language), whether each answered it alike in every
    language. The paired unit of mcq_model_comparison. -#}
with items as (

    select * from {{ ref('int_mcq_items_classified') }}
    where disagreement_type <> 'incomplete'

),

final as (

    select
        a.task,
        a.variant,
        a.run_id as run_id_a,
        b.run_id as run_id_b,
        a.item_id,
        a.full_agreement as full_agreement_a,
        b.full_agreement as full_agreement_b
    from items as a
    inner join items as b
        on a.task = b.task
        and a.variant = b.variant
        and a.item_id = b.item_id
        and a.run_id < b.run_id

)

select * from final
