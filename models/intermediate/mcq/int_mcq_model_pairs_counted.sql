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

    {{ mcq_run_pairs_2x2('items', 'full_agreement') }}

)

select * from final
