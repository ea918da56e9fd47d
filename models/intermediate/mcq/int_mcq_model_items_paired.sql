{#- Two models side by side on the same items: per unordered pair of models (model_a <
    model_b), run and item that both answered completely (a valid answer in every
    language), whether each answered it alike in every language. The paired unit of
    mcq_model_comparison. -#}
with items as (

    select * from {{ ref('int_mcq_items_classified') }}
    where disagreement_type <> 'incomplete'

),

final as (

    select
        a.model as model_a,
        b.model as model_b,
        a.run,
        a.item_id,
        a.full_agreement as full_agreement_a,
        b.full_agreement as full_agreement_b
    from items as a
    inner join items as b
        on a.run = b.run
        and a.item_id = b.item_id
        and a.model < b.model

)

select * from final
