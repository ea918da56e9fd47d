{#- Accuracy across a run's languages, per run and task: of the items with a gold that the
    run answered in every one of its languages (int_mcq_run_languages_answered), the share
    answered correctly in every language, in none, and consistently but wrongly (the same wrong option in every
    language), each with its standard error and n. A run and task with no such item has
    null shares, never 0 (docs/formulas.md, "Accuracy and calibration"). -#}
with graded as (select * from {{ ref('int_mcq_answers_graded') }}),

-- each run's languages in each task it answered (a small table, not the answers again)
languages as (select * from {{ ref('int_mcq_run_languages_answered') }}),

run_languages as (

    select
        run_id,
        task,
        count(*) as n_languages
    from languages
    group by run_id, task

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
    inner join languages using (run_id, task, language)
    group by graded.run_id, graded.task, graded.item_id

),

item_counted as (

    -- the items graded in every language of the task
    select
        per_item.run_id,
        per_item.task,
        count(*) as n_items,
        count(case when per_item.n_correct = run_languages.n_languages then 1 end)
            as n_all_correct,
        count(case when per_item.n_correct = 0 then 1 end) as n_none_correct,
        count(
            case
                when per_item.n_correct = 0
                    and per_item.n_valid = run_languages.n_languages
                    and per_item.n_options = 1
                    then 1
            end
        ) as n_consistently_wrong
    from per_item
    inner join run_languages
        on per_item.run_id = run_languages.run_id and per_item.task = run_languages.task
    where per_item.n_graded = run_languages.n_languages
    group by per_item.run_id, per_item.task

),

counted as (

    select
        run_languages.run_id,
        run_languages.task,
        run_languages.n_languages,
        coalesce(item_counted.n_items, 0) as n_items,
        coalesce(item_counted.n_all_correct, 0) as n_all_correct,
        coalesce(item_counted.n_none_correct, 0) as n_none_correct,
        coalesce(item_counted.n_consistently_wrong, 0) as n_consistently_wrong
    from run_languages
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
