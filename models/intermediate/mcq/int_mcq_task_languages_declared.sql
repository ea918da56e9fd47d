{#- One row per task and language the task declares it is compared in, and where that is
    declared (declared_in). The one statement of the rule (docs/formulas.md, "A task's
    languages"): the var mcq_languages, when not empty, for every task with answers (an
    override: the reader sets aside an answer in another language); else a task's lines in
    seeds/mcq/mcq_task_languages.csv; else the languages of its item files. A task with
    none of these declares nothing: it compares every language its answers hold
    (int_mcq_run_languages_answered). An answer in a language its task does not declare is not
    compared: it goes to the quarantine (macros/mcq_answers.sql, mcq_in_task_languages). -#}
{% if var('mcq_languages') | length > 0 %}

with tasks as (select distinct task from {{ ref('stg_mcq__answers') }}),

final as (

    select tasks.task, declared.language, 'var mcq_languages' as declared_in
    from tasks
    cross join (
        {% for lang in var('mcq_languages') %}
        select '{{ lang }}' as language{{ ' union all' if not loop.last }}
        {% endfor %}
    ) as declared

)

{% else %}

with listed as (select task, language from {{ ref('stg_mcq__task_languages') }}),

item_files as (select distinct task, language from {{ ref('stg_mcq__items') }}),

final as (

    select task, language, 'mcq_task_languages.csv' as declared_in
    from listed

    union all

    select task, language, 'its item files' as declared_in
    from item_files
    where task not in (select task from listed)

)

{% endif %}

select * from final
