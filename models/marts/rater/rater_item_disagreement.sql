with items as (select * from {{ ref('int_rater_items_measured') }}),

final as (

    select {{ contract_columns('items') }}
    from items

)

select * from final
