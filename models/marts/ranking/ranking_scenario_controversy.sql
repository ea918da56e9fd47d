{#- Column means of the A matrix plus Kendall's W: how contested each scenario is. Means
    are rounded to 9 decimals for ranking so that float noise never splits equal means. -#}
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
        rank() over (partition by method order by round(mean_tau_b, 9) asc) as controversy_rank
    from joined

),

final as (

    select
        cast(scenario_id as {{ dbt.type_string() }}) as scenario_id,
        cast(method as {{ dbt.type_string() }}) as method,
        cast(mean_tau_b as double) as mean_tau_b,
        cast(kendall_w as double) as kendall_w,
        cast(n_raters as bigint) as n_raters,
        cast(n_tasks as bigint) as n_tasks,
        cast(controversy_rank as bigint) as controversy_rank
    from ranked

)

select * from final
