{#- Warns, one row per task and language, when a language declared in mcq_languages has no
    answer at all in a task: every item of the task is then incomplete, and this names the
    language that makes it so (drop it from mcq_languages, or land its answers). -#}
{{ config(severity='warn') }}

with declared as (select * from {{ ref('int_mcq_task_languages_declared') }}),

answered as (

    select distinct task, language from {{ ref('int_mcq_answers_normalised') }}

),

final as (

    select
        declared.task,
        declared.language,
        'declared in mcq_languages, no answer in task ' || declared.task as problem
    from declared
    left join answered using (task, language)
    where answered.language is null

)

select * from final
