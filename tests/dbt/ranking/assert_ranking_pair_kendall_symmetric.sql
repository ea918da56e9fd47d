{#- K is symmetric with a unit diagonal: (i, j) and (j, i) carry the same mean, count and
    interval, and a rater agrees perfectly with itself on every scenario it ranked. -#}
with pairs as (select * from {{ ref('ranking_pair_kendall') }}),

mirrored as (

    select
        pairs.rater_id,
        pairs.other_rater_id,
        pairs.mean_tau_b,
        mirror.mean_tau_b as mirror_mean_tau_b,
        pairs.n_scenarios,
        mirror.n_scenarios as mirror_n_scenarios,
        pairs.ci_low,
        mirror.ci_low as mirror_ci_low,
        pairs.ci_high,
        mirror.ci_high as mirror_ci_high
    from pairs
    left join pairs as mirror
        on pairs.rater_id = mirror.other_rater_id
        and pairs.other_rater_id = mirror.rater_id

),

final as (

    select *
    from mirrored
    where mirror_n_scenarios is null
        or n_scenarios <> mirror_n_scenarios
        or abs(mean_tau_b - mirror_mean_tau_b) > 1e-12
        or abs(ci_low - mirror_ci_low) > 1e-12
        or abs(ci_high - mirror_ci_high) > 1e-12
        or (rater_id = other_rater_id and n_scenarios > 0 and abs(mean_tau_b - 1) > 1e-12)

)

select * from final
