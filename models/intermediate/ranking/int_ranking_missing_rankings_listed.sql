{#- Every (rater, scenario) pair without a valid ranking: the rater never ranked the
    scenario, or the ranking was quarantined. Pairwise statistics use only the scenarios
    both raters ranked; consensus and W use the raters present. -#}
with rankings as (select * from {{ ref('stg_ranking__rankings') }}),

validated as (select * from {{ ref('int_ranking_orders_validated') }}),

raters as (

    select distinct rater_id from rankings where rater_id is not null

),

scenarios as (

    select distinct scenario_id from rankings where scenario_id is not null

),

attempted as (

    select distinct
        rater_id,
        scenario_id
    from rankings
    where rater_id is not null
        and scenario_id is not null

),

valid as (

    select distinct
        rater_id,
        scenario_id
    from validated

),

final as (

    select
        raters.rater_id,
        scenarios.scenario_id,
        case
            when attempted.rater_id is null then 'no ranking in the seed'
            else 'ranking quarantined (see int_ranking_rankings_quarantined)'
        end as reason
    from raters
    cross join scenarios
    left join valid
        on raters.rater_id = valid.rater_id
        and scenarios.scenario_id = valid.scenario_id
    left join attempted
        on raters.rater_id = attempted.rater_id
        and scenarios.scenario_id = attempted.scenario_id
    where valid.rater_id is null

)

select * from final
