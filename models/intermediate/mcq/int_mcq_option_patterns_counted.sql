{#- Per run and task: each distinct pattern of an item's valid answers (the options its
    languages chose, as a sorted list: ['A', 'A', 'B'] is two languages on A and one on B)
    and how many items show it. These are the sufficient statistic of Fleiss' kappa with the
    languages as raters (int_mcq_metrics_bootstrapped): which language chose what does not
    enter it, so however many items there are, there are at most as many patterns as ways
    to spread the languages over the options. One aggregation over the answers. -#}
with answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}
    where is_valid

),

item_patterns as (

    select
        run_id,
        task,
        {{ sorted_list_agg('chosen_option') }} as pattern
    from answers
    group by run_id, task, item_id

),

final as (

    select
        run_id,
        task,
        pattern,
        count(*) as n_items
    from item_patterns
    group by run_id, task, pattern

)

select * from final
