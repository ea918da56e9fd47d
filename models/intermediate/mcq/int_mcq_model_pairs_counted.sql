{#- Two runs of one task and variant on the same items: per unordered pair of runs
    (run_id_a < run_id_b), the items both answered completely (a valid answer in every
    language), counted by whether each answered alike in every language. The 2 × 2 table is
    all that mcq_model_comparison's figures depend on (its difference, its bootstrap, the
    McNemar test), so no per-item row leaves this model. -#}
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
        count(*) as n_items,
        count(*) filter (where a.full_agreement and b.full_agreement) as n_both,
        count(*) filter (where a.full_agreement and not b.full_agreement) as n_only_a,
        count(*) filter (where b.full_agreement and not a.full_agreement) as n_only_b
    from items as a
    inner join items as b
        on a.task = b.task
        and a.variant = b.variant
        and a.item_id = b.item_id
        and a.run_id < b.run_id
    group by a.task, a.variant, a.run_id, b.run_id

)

select * from final
