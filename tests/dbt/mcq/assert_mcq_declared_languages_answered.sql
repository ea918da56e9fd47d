{#- Warns, one row per task and language, when a language its task declares
    (int_mcq_task_languages_declared) has no answer at all in the task: no run is compared in
    it, which is as a rule a mistyped tag (DE for de) or answers not landed yet. -#}
{{ config(severity='warn') }}

with declared as (select * from {{ ref('int_mcq_task_languages_declared') }}),

answered as (

    select distinct task, language from {{ ref('int_mcq_run_languages_answered') }}

),

final as (

    select
        declared.task,
        declared.language,
        'declared by ' || declared.declared_in || ', no answer in task ' || declared.task
            as problem
    from declared
    left join answered using (task, language)
    where answered.language is null

)

select * from final
