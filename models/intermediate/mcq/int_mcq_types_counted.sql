{#- Items per run and task in each disagreement type, zero where a type does not occur. -#}
with items as (select * from {{ ref('int_mcq_items_classified') }}),

final as (

    {{ mcq_type_counts('items') }}

)

select * from final
