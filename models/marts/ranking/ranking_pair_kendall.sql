with pair_taus as (select * from {{ ref('int_ranking_pair_taus_averaged') }}),

final as (

    select {{ contract_columns('pair_taus') }}
    from pair_taus

)

select * from final
