with items as (

    select * from {{ ref('int_mcq_items_classified') }}

),

final as (

    select
        model,
        run,
        item_id,
        domain,
        answer_en,
        answer_it,
        answer_fa,
        original_option_en,
        original_option_it,
        original_option_fa,
        full_agreement,
        disagreement_type
    from items

)

select * from final
