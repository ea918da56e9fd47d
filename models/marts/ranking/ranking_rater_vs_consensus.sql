with consensus_taus as (select * from {{ ref('int_ranking_consensus_taus_computed') }}),

final as (

    select
        cast(rater_id as {{ dbt.type_string() }}) as rater_id,
        cast(scenario_id as {{ dbt.type_string() }}) as scenario_id,
        cast(method as {{ dbt.type_string() }}) as method,
        cast(tau_b as double) as tau_b
    from consensus_taus

)

select * from final
