with group_averages as (select * from {{ ref('int_probe_indices_group_averaged') }}),

final as (

    select {{ contract_columns('group_averages') }}
    from group_averages

)

select * from final
