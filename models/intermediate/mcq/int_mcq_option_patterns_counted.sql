{#- Per run and task: each distinct pattern of an item's valid answers (the options its
    languages chose, as a sorted list: ['A', 'A', 'B'] is two languages on A and one on B)
    and how many items show it. These are the sufficient statistic of Fleiss' kappa with the
    languages as raters (int_mcq_metrics_bootstrapped): which language chose what does not
    enter it, so however many items there are, there are at most as many patterns as ways
    to spread the languages over the options. Read from the items (int_mcq_items_classified
    counts each item's languages on each option key in its one pass over the
    answers), not the answers; the lists are made per pattern, not per item (a list per
    item took twice as long at 10^7 answers). Incremental by run: a run's
    patterns depend on its answers alone, so only the runs whose answers changed are
    counted again (macros/mcq_incremental_groups.sql). -#}
{{ config(**mcq_incremental_by_group(
    "ref('int_mcq_runs_versioned')",
    ['run_id'],
)) }}
{%- set options = mcq_option_keys(sorted=true) -%}
{%- set n_parts = "length(option_counts) - length(replace(option_counts, ',', '')) + 1" -%}

with patterns as (

    -- each pattern once per run and task, with its items (those with a valid answer)
    select run_id, task, option_counts, count(*) as n_items
    from {{ ref('int_mcq_items_classified') }}
    where n_valid > 0
        and {{ mcq_in_groups_to_compute(ref('int_mcq_runs_versioned'), ['run_id']) }}
    group by run_id, task, option_counts

),

item_counts as (

    select
        run_id,
        task,
        {%- for option in options %}
        -- a count the text leaves out is a trailing zero
        case
            when {{ n_parts }} >= {{ loop.index }} then cast(
                {{ dbt.split_part('option_counts', "','", loop.index) }} as {{ dbt.type_int() }}
            )
            else 0
        end as n_option_{{ loop.index }},
        {%- endfor %}
        n_items
    from patterns

),

final as (

    select
        run_id,
        task,
        {{ repeated_list(options, 'n_option_') }} as pattern,
        n_items
    from item_counts

)

select * from final
