{#- Column means of the A matrix plus Kendall's W: how contested each scenario is. -#}
with consensus_taus as (select * from {{ ref('int_ranking_consensus_taus_computed') }}),

concordance as (select * from {{ ref('int_ranking_scenario_concordance_computed') }}),

averaged as (

    select
        scenario_id,
        method,
        avg(tau_b) as mean_tau_b
    from consensus_taus
    group by scenario_id, method

),

joined as (

    select
        averaged.scenario_id,
        averaged.method,
        averaged.mean_tau_b,
        concordance.kendall_w,
        concordance.n_raters,
        concordance.n_tasks
    from averaged
    inner join concordance
        on averaged.scenario_id = concordance.scenario_id

),

ranked as (

    select
        joined.*,
        {{ ranking_mean_tau_rank('asc') }} as controversy_rank
    from joined

),

final as (

    select {{ contract_columns('ranked') }}
    from ranked

)

select * from final
