with consensus_taus as (select * from {{ ref('int_ranking_consensus_taus_computed') }}),

final as (

    select {{ contract_columns('consensus_taus') }}
    from consensus_taus

)

select * from final
