{#- Per run and task: each distinct pattern of an item's valid answers over its options (how
    many of the task's languages chose each option), one row per option of the pattern, with
    the items showing it. These are the sufficient statistic of Fleiss' kappa with the
    languages as raters (int_mcq_metrics_bootstrapped): which language chose what does not
    enter it, so however many items there are, there are at most as many patterns as ways to
    spread the languages over the options. A pattern's name lists its options with their
    lengths (`1:A=2;1:B=1;`), so two patterns share a name only if they are the same. -#}
with answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}
    where is_valid

),

item_options as (

    select run_id, task, item_id, chosen_option, count(*) as n_choosing
    from answers
    group by run_id, task, item_id, chosen_option

),

item_patterns as (

    select
        run_id,
        task,
        item_id,
        {{ string_agg_ordered(
            "cast(length(chosen_option) as " ~ dbt.type_string() ~ ") || ':' || chosen_option"
            ~ " || '=' || cast(n_choosing as " ~ dbt.type_string() ~ ")",
            "';'",
            'chosen_option',
        ) }} as pattern
    from item_options
    group by run_id, task, item_id

),

final as (

    -- every item of a pattern has the pattern's options and counts: a count of the
    -- (pattern, option) rows is the pattern's number of items
    select
        item_patterns.run_id,
        item_patterns.task,
        item_patterns.pattern,
        item_options.chosen_option,
        item_options.n_choosing,
        count(*) as n_items
    from item_options
    inner join item_patterns
        on item_options.run_id = item_patterns.run_id
        and item_options.task = item_patterns.task
        and item_options.item_id = item_patterns.item_id
    group by
        item_patterns.run_id, item_patterns.task, item_patterns.pattern,
        item_options.chosen_option, item_options.n_choosing

)

select * from final
