{#- Valid answers per run, task, language and option key (its task's, in key order:
    int_mcq_task_options_keyed): how many chose the option (n_option) and how many chose whatever
    was shown at the option's position (n_position: position bias); every option of the
    task is present, zero where unused. -#}
with answers as (select * from {{ ref('int_mcq_answers_normalised') }}),

options as (

    select task as options_task, option_key as option, option_position
    from {{ ref('int_mcq_task_options_keyed') }}

),

choices as (

    -- the one pass over the answers (a CTE read three times would be materialised, a copy
    -- of every answer): per run, task and language, each option chosen at each position
    select
        run_id,
        model,
        model_revision,
        variant,
        task,
        language,
        chosen_option,
        presented_position,
        count(*) as n
    from answers
    group by
        run_id, model, model_revision, variant, task, language, chosen_option,
        presented_position

),

cells as (

    select distinct run_id, model, model_revision, variant, task, language from choices

),

by_option as (

    select run_id, task, language, chosen_option as option, sum(n) as n
    from choices
    where chosen_option is not null
    group by run_id, task, language, chosen_option

),

by_position as (

    select run_id, task, language, presented_position as option_position, sum(n) as n
    from choices
    where chosen_option is not null
    group by run_id, task, language, presented_position

),

counted as (

    select
        cells.run_id,
        cells.model,
        cells.model_revision,
        cells.variant,
        cells.task,
        cells.language,
        options.option,
        options.option_position,
        cast(coalesce(by_option.n, 0) as {{ dbt.type_bigint() }}) as n_option,
        cast(coalesce(by_position.n, 0) as {{ dbt.type_bigint() }}) as n_position
    from cells
    inner join options on cells.task = options.options_task
    left join by_option using (run_id, task, language, option)
    left join by_position using (run_id, task, language, option_position)

),

final as (

    select
        *,
        (sum(n_option) over (partition by run_id, task, language))::bigint as n_valid
    from counted

)

select * from final
