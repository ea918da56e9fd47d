{#- Per run, task and domain: the items of each disagreement type. -#}
with items as (select * from {{ ref('int_mcq_items_classified') }}),

counted as (

    {{ mcq_type_counts('items', by=['domain']) }}

),

final as (

    select {{ contract_columns('counted') }}
    from counted

)

select * from final
