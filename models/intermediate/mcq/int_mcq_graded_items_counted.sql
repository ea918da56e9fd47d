{#- Per run, task and item with a gold: the languages whose answer was graded and how many
    of them were correct (an invalid answer is wrong): the sufficient statistics of the
    accuracy pooled over languages, items as the unit (int_mcq_accuracy_pooled). -#}
with graded as (select * from {{ ref('int_mcq_answers_graded') }}),

final as (

    select
        run_id,
        task,
        item_id,
        count(*) as n_graded,
        sum(case when is_correct then 1 else 0 end) as n_correct
    from graded
    group by run_id, task, item_id

)

select * from final
