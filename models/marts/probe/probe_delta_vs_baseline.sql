with deltas as (select * from {{ ref('int_probe_deltas_paired') }}),

final as (

    select {{ contract_columns('deltas') }}
    from deltas

)

select * from final
