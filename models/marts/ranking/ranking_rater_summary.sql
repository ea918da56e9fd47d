{#- Row means of the A matrix: how close each rater stays to each consensus. -#}
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
        {{ ranking_mean_tau_rank('desc') }} as closeness_rank
    from averaged

),

final as (

    select {{ contract_columns('ranked') }}
    from ranked

)

select * from final
