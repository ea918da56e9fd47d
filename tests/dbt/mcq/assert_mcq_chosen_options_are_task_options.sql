{#- Every valid answer points to one of its task's option keys (int_mcq_task_options_keyed): the
    models that give each key a column (mcq_option_keys) count every valid answer. -#}
select answers.run_id, answers.task, answers.item_id, answers.language, answers.chosen_option
from {{ ref('int_mcq_answers_normalised') }} as answers
where answers.chosen_option is not null
    and not exists (
        select 1
        from {{ ref('int_mcq_task_options_keyed') }} as task_options
        where task_options.task = answers.task
            and task_options.option_key = answers.chosen_option
    )
