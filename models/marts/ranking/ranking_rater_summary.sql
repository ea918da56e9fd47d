{#- Row means of the A matrix: how close each rater stays to each consensus. Means are
    rounded to 9 decimals for ranking so that float noise never splits equal means. -#}
with consensus_taus as (select * from {{ ref('int_ranking_consensus_taus_computed') }}),

averaged as (

    select
        rater_id,
        method,
        avg(tau_b) as mean_tau_b,
        count(tau_b) as n_scenarios
    from consensus_taus
    group by rater_id, method

),

ranked as (

    select
        averaged.*,
        rank() over (partition by method order by round(mean_tau_b, 9) desc) as closeness_rank
    from averaged

),

final as (

    select
        cast(rater_id as {{ dbt.type_string() }}) as rater_id,
        cast(method as {{ dbt.type_string() }}) as method,
        cast(mean_tau_b as double) as mean_tau_b,
        cast(n_scenarios as bigint) as n_scenarios,
        cast(closeness_rank as bigint) as closeness_rank
    from ranked

)

select * from final
