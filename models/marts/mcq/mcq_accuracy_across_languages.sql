{#- Accuracy across a task's languages, per run and task: of the items with a gold that the
    run answered in every one of the task's languages, the share answered correctly in
    every language, in none, and consistently but wrongly (the same wrong option in every
    language), each with its standard error and n. A run and task with no such item has
    null shares, never 0 (docs/formulas.md, "Accuracy and calibration"). -#}
with graded as (select * from {{ ref('int_mcq_answers_graded') }}),

-- the runs and tasks with answers: one row each (a small table, not the answers again)
answered as (select run_id, task from {{ ref('int_mcq_types_counted') }}),

languages as (select * from {{ ref('int_mcq_task_languages_declared') }}),

task_languages as (

    select
        task,
        count(*) as n_languages
    from languages
    group by task

),

per_item as (

    select
        graded.run_id,
        graded.task,
        graded.item_id,
        count(*) as n_graded,
        count(case when graded.is_correct then 1 end) as n_correct,
        count(graded.chosen_option) as n_valid,
        count(distinct graded.chosen_option) as n_options
    from graded
    inner join languages using (task, language)
    group by graded.run_id, graded.task, graded.item_id

),

item_counted as (

    -- the items graded in every language of the task
    select
        per_item.run_id,
        per_item.task,
        count(*) as n_items,
        count(case when per_item.n_correct = task_languages.n_languages then 1 end)
            as n_all_correct,
        count(case when per_item.n_correct = 0 then 1 end) as n_none_correct,
        count(
            case
                when per_item.n_correct = 0
                    and per_item.n_valid = task_languages.n_languages
                    and per_item.n_options = 1
                    then 1
            end
        ) as n_consistently_wrong
    from per_item
    inner join task_languages
        on per_item.task = task_languages.task
    where per_item.n_graded = task_languages.n_languages
    group by per_item.run_id, per_item.task

),

counted as (

    select
        answered.run_id,
        answered.task,
        task_languages.n_languages,
        coalesce(item_counted.n_items, 0) as n_items,
        coalesce(item_counted.n_all_correct, 0) as n_all_correct,
        coalesce(item_counted.n_none_correct, 0) as n_none_correct,
        coalesce(item_counted.n_consistently_wrong, 0) as n_consistently_wrong
    from answered
    inner join task_languages using (task)
    left join item_counted using (run_id, task)

),

measured as (

    select
        counted.*,
        {{ share_pct('n_all_correct', 'n_items') }} as all_correct_pct,
        {{ share_std_error_pp('n_all_correct', 'n_items') }} as all_correct_std_error,
        {{ share_pct('n_none_correct', 'n_items') }} as none_correct_pct,
        {{ share_std_error_pp('n_none_correct', 'n_items') }} as none_correct_std_error,
        {{ share_pct('n_consistently_wrong', 'n_items') }} as consistently_wrong_pct,
        {{ share_std_error_pp('n_consistently_wrong', 'n_items') }}
            as consistently_wrong_std_error
    from counted

),

final as (

    {{ mcq_run_mart_columns('measured') }}

)

select * from final
