{#- The rankings that are permutations of their scenario's tasks, one row per (rater,
    scenario, position), with each task's index in its scenario. The rank of a task is its
    position: the Python models build rank vectors (position per task index) from these
    rows, never correlate the orders themselves. -#}
with checked as (select * from {{ ref('int_ranking_rankings_checked') }}),

scenario_tasks as (select * from {{ ref('int_ranking_scenario_tasks_derived') }}),

final as (

    select
        checked.rater_id,
        checked.scenario_id,
        checked.position,
        checked.task_id,
        scenario_tasks.task_index,
        scenario_tasks.n_tasks,
        checked.source_row
    from checked
    inner join scenario_tasks
        on checked.scenario_id = scenario_tasks.scenario_id
        and checked.task_id = scenario_tasks.task_id
    where not checked.is_ranking_rejected

)

select * from final
