{#- Every (rater, scenario) pair without a valid ranking: the rater never ranked the
    scenario, or the ranking was quarantined. Pairwise statistics use only the scenarios
    both raters ranked; consensus and W use the raters present. -#}
with checked as (select * from {{ ref('int_ranking_rankings_checked') }}),

raters as (

    select distinct rater_id from checked where rater_id is not null

),

scenarios as (

    select distinct scenario_id from checked where scenario_id is not null

),

rankings as (

    {#- each (rater, scenario) ranking of the seed with its verdict, which every row of the
        ranking carries -#}
    select distinct
        rater_id,
        scenario_id,
        is_ranking_rejected
    from checked
    where rater_id is not null
        and scenario_id is not null

),

final as (

    select
        raters.rater_id,
        scenarios.scenario_id,
        case
            when rankings.rater_id is null then 'no ranking in the seed'
            else 'ranking quarantined (see int_ranking_rankings_quarantined)'
        end as reason
    from raters
    cross join scenarios
    left join rankings using (rater_id, scenario_id)
    where rankings.rater_id is null
        or rankings.is_ranking_rejected

)

select * from final
