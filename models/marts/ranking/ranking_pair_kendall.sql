with pair_taus as (

    select * from {{ ref('int_ranking_pair_taus_averaged') }}

),

final as (

    select
        cast(rater_id as {{ dbt.type_string() }}) as rater_id,
        cast(other_rater_id as {{ dbt.type_string() }}) as other_rater_id,
        cast(mean_tau_b as double) as mean_tau_b,
        cast(n_scenarios as bigint) as n_scenarios,
        cast(ci_low as double) as ci_low,
        cast(ci_high as double) as ci_high,
        cast(bootstrap_confidence as double) as bootstrap_confidence,
        cast(bootstrap_resamples as bigint) as bootstrap_resamples
    from pair_taus

)

select * from final
