{#- Per run and task: the sufficient statistics of the accuracy pooled over languages with
    the item as the unit (int_mcq_accuracy_pooled, concord_stats.consistency.ratio_interval):
    the items with a gold, and over them the sums of each item's correct answers a and
    graded answers m (an invalid answer is wrong), of a², a·m and m². Whole numbers: the
    interval is computed from them exactly, in any order, and Python receives one row per
    run and task, however many items. -#}
with graded as (select * from {{ ref('int_mcq_answers_graded') }}),

items as (

    select
        run_id,
        task,
        item_id,
        count(*) as n_graded,
        sum(case when is_correct then 1 else 0 end) as n_correct
    from graded
    group by run_id, task, item_id

),

final as (

    select
        run_id,
        task,
        cast(count(*) as {{ dbt.type_bigint() }}) as n_items,
        cast(sum(n_correct) as {{ dbt.type_bigint() }}) as sum_correct,
        cast(sum(n_graded) as {{ dbt.type_bigint() }}) as sum_graded,
        cast(sum(n_correct * n_correct) as {{ dbt.type_bigint() }}) as sum_correct_sq,
        cast(sum(n_correct * n_graded) as {{ dbt.type_bigint() }}) as sum_correct_graded,
        cast(sum(n_graded * n_graded) as {{ dbt.type_bigint() }}) as sum_graded_sq
    from items
    group by run_id, task

)

select * from final
