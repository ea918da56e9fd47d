{#- Every seed row, plus one row per scenario task missing from a ranking, with its task's
    index in the scenario, why it cannot enter the statistics (null when it can) and
    whether its whole ranking is rejected. A (rater, scenario) ranking is used only when it is a permutation of the
    scenario's tasks: one bad row (missing key, non-integer position, duplicate row, extra
    or repeated task, repeated or out-of-range position) or one missing task rejects the
    whole ranking, since its ranks would otherwise be wrong, never just incomplete. -#}
with rankings as (select * from {{ ref('stg_ranking__rankings') }}),

scenario_tasks as (select * from {{ ref('int_ranking_scenario_tasks_derived') }}),

task_positions as (

    select
        rater_id,
        scenario_id,
        task_id,
        count(distinct position_text) as n_positions_of_task
    from rankings
    group by rater_id, scenario_id, task_id

),

position_tasks as (

    select
        rater_id,
        scenario_id,
        position,
        count(distinct task_id) as n_tasks_at_position
    from rankings
    where position is not null
    group by rater_id, scenario_id, position

),

scenario_sizes as (

    select distinct
        scenario_id,
        n_tasks
    from scenario_tasks

),

annotated as (

    select
        rankings.*,
        row_number() over (
            partition by rankings.rater_id, rankings.scenario_id, rankings.position_text,
                rankings.task_id
            order by rankings.source_row
        ) as identical_row_number,
        scenario_tasks.task_id is not null as is_scenario_task,
        scenario_tasks.task_index,
        task_positions.n_positions_of_task,
        position_tasks.n_tasks_at_position,
        scenario_sizes.n_tasks
    from rankings
    left join scenario_tasks using (scenario_id, task_id)
    left join task_positions using (rater_id, scenario_id, task_id)
    left join position_tasks using (rater_id, scenario_id, position)
    left join scenario_sizes
        on rankings.scenario_id = scenario_sizes.scenario_id

),

row_checks as (

    select
        source_row,
        rater_id,
        scenario_id,
        position_text,
        position,
        task_id,
        task_index,
        n_tasks,
        case
            when rater_id is null then 'rater_id'
            when scenario_id is null then 'scenario_id'
            when task_id is null then 'task_id'
            when position is null then 'position'
            when identical_row_number > 1 then 'task_id'
            when not is_scenario_task then 'task_id'
            when n_positions_of_task > 1 then 'task_id'
            when n_tasks_at_position > 1 then 'position'
            when position < 1 or position > n_tasks then 'position'
        end as rejected_column,
        case
            when rater_id is null then 'missing rater_id'
            when scenario_id is null then 'missing scenario_id'
            when task_id is null then 'missing task_id'
            when position_text is null then 'missing position'
            when position is null then 'position is not a whole number'
            when identical_row_number > 1
                then 'duplicate row: same rater, scenario, position and task as an earlier row'
            -- a reason is one string, kept whole as the quarantine shows it
            when not is_scenario_task
                then {{ sql_string_literal("extra task: not among the scenario's tasks (those ranked by more than half of its raters)") }}  -- noqa: LT05
            when n_positions_of_task > 1 then 'task repeated in the ranking'
            when n_tasks_at_position > 1 then 'position repeated in the ranking'
            when position < 1 or position > n_tasks
                then 'position outside 1..n_tasks of the scenario (gap in the positions)'
        end as rejection_reason
    from annotated

),

rankings_present as (

    select distinct
        rater_id,
        scenario_id
    from rankings
    where rater_id is not null
        and scenario_id is not null

),

missing_tasks as (

    select
        cast(null as bigint) as source_row,
        rankings_present.rater_id,
        rankings_present.scenario_id,
        cast(null as {{ dbt.type_string() }}) as position_text,
        cast(null as integer) as position,
        scenario_tasks.task_id,
        scenario_tasks.task_index,
        scenario_tasks.n_tasks,
        'task_id' as rejected_column,
        'scenario task missing from the ranking (gap)' as rejection_reason
    from rankings_present
    inner join scenario_tasks using (scenario_id)
    left join rankings using (rater_id, scenario_id, task_id)
    where rankings.task_id is null

),

all_rows as (

    select * from row_checks
    union all
    select * from missing_tasks

),

rejected_rankings as (

    select distinct
        rater_id,
        scenario_id
    from all_rows
    where rejection_reason is not null
        and rater_id is not null
        and scenario_id is not null

),

final as (

    select
        all_rows.source_row,
        all_rows.rater_id,
        all_rows.scenario_id,
        all_rows.position_text,
        all_rows.position,
        all_rows.task_id,
        all_rows.task_index,
        all_rows.n_tasks,
        all_rows.rejected_column,
        all_rows.rejection_reason,
        all_rows.rejection_reason is not null
            or rejected_rankings.rater_id is not null
            as is_ranking_rejected
    from all_rows
    left join rejected_rankings using (rater_id, scenario_id)

)

select * from final
