{#- One row per task and language it is compared in: the languages declared by the var
    mcq_languages (the same list for every task), or, when that list is empty, every
    language present in any of the task's answers, valid or not. An item is complete when
    each of its task's languages has a valid answer (docs/formulas.md). -#}
with answers as (select * from {{ ref('int_mcq_answers_normalised') }}),

tasks as (

    select distinct task from answers

),

final as (

    {% if var('mcq_languages') | length > 0 %}
    select tasks.task, declared.language
    from tasks
    cross join (
        {% for lang in var('mcq_languages') %}
        select '{{ lang }}' as language{{ ' union all' if not loop.last }}
        {% endfor %}
    ) as declared
    {% else %}
    select distinct task, language from answers
    {% endif %}

)

select * from final
