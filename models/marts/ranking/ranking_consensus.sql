with consensus as (select * from {{ ref('int_ranking_consensus_built') }}),

final as (

    select {{ contract_columns('consensus') }}
    from consensus

)

select * from final
