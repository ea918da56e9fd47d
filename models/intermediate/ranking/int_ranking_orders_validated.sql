{#- The rankings that are permutations of their scenario's tasks, one row per (rater,
    scenario, position), with each task's index in its scenario. The rank of a task is its
    position: the Python models build rank vectors (position per task index) from these
    rows, never correlate the orders themselves. -#}
with checked as (select * from {{ ref('int_ranking_rankings_checked') }}),

final as (

    select
        rater_id,
        scenario_id,
        position,
        task_id,
        task_index,
        n_tasks,
        source_row
    from checked
    where not is_ranking_rejected

)

select * from final
