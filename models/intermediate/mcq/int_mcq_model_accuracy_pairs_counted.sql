{#- Two runs of one task and variant against gold on the same items: per unordered pair of
    runs (run_id_a < run_id_b) and language, the items with a gold both answered (validly
    or not: an invalid answer is wrong), counted by which of the two answered correctly.
    The 2 × 2 table is all that mcq_model_accuracy_comparison's figures depend on. -#}
with graded as (select * from {{ ref('int_mcq_answers_graded') }}),

final as (

    select
        a.task,
        a.variant,
        a.run_id as run_id_a,
        b.run_id as run_id_b,
        a.language,
        count(*) as n_items,
        count(*) filter (where a.is_correct and b.is_correct) as n_both,
        count(*) filter (where a.is_correct and not b.is_correct) as n_only_a,
        count(*) filter (where b.is_correct and not a.is_correct) as n_only_b
    from graded as a
    inner join graded as b
        on a.task = b.task
        and a.variant = b.variant
        and a.item_id = b.item_id
        and a.language = b.language
        and a.run_id < b.run_id
    group by a.task, a.variant, a.run_id, b.run_id, a.language

)

select * from final
