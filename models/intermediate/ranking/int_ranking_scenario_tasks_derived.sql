{#- The task set of each scenario, derived from the rankings since the seed has no task
    list: a task belongs to the scenario when more than half of the raters who ranked the
    scenario include it. A task only a minority names is an extra task; a scenario task
    missing from a ranking leaves a gap. task_index numbers the tasks 0.. in task_id order,
    which is also the order every consensus tie-break follows ("smaller task id"). -#}
with rankings as (select * from {{ ref('stg_ranking__rankings') }}),

keyed as (

    select distinct
        rater_id,
        scenario_id,
        task_id
    from rankings
    where rater_id is not null
        and scenario_id is not null
        and task_id is not null

),

scenario_raters as (

    select
        scenario_id,
        count(distinct rater_id) as n_raters
    from keyed
    group by scenario_id

),

task_support as (

    select
        scenario_id,
        task_id,
        count(*) as n_raters_ranking
    from keyed
    group by scenario_id, task_id

),

majority as (

    select
        task_support.scenario_id,
        task_support.task_id,
        task_support.n_raters_ranking,
        scenario_raters.n_raters
    from task_support
    inner join scenario_raters
        on task_support.scenario_id = scenario_raters.scenario_id
    where 2 * task_support.n_raters_ranking > scenario_raters.n_raters

),

final as (

    select
        scenario_id,
        task_id,
        cast(row_number() over (partition by scenario_id order by task_id) - 1 as integer)
            as task_index,
        cast(count(*) over (partition by scenario_id) as integer) as n_tasks,
        n_raters_ranking,
        n_raters
    from majority

)

select * from final
