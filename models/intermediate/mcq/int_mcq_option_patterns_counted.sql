{#- Per run and task: each distinct pattern of an item's valid answers (the options its
    languages chose, as a sorted list: ['A', 'A', 'B'] is two languages on A and one on B)
    and how many items show it. These are the sufficient statistic of Fleiss' kappa with the
    languages as raters (int_mcq_metrics_bootstrapped): which language chose what does not
    enter it, so however many items there are, there are at most as many patterns as ways
    to spread the languages over the options. One aggregation over the answers counts each
    item's languages on each option of var mcq_options (every valid answer is one: the test
    on int_mcq_answers_normalised.chosen_option); the lists are made per pattern, not per
    item (a list per item took twice as long at 10^7 answers). Incremental by run: a run's
    patterns depend on its answers alone, so only the runs whose answers changed are
    counted again (macros/mcq_incremental_groups.sql). -#}
{{ config(**mcq_incremental_by_group(
    "ref('int_mcq_runs_versioned')",
    ['run_id'],
)) }}
{%- set options = var('mcq_options') | sort -%}

with item_counts as (

    select
        run_id,
        task,
        item_id,
        {%- for option in options %}
        count(*) filter (where chosen_option = '{{ option }}') as n_option_{{ loop.index }}
        {{- ',' if not loop.last }}
        {%- endfor %}
    from {{ ref('int_mcq_answers_normalised') }}
    where is_valid
        and {{ mcq_in_groups_to_compute(ref('int_mcq_runs_versioned'), ['run_id']) }}
    group by run_id, task, item_id

),

final as (

    select
        run_id,
        task,
        {{ repeated_list(options, 'n_option_') }} as pattern,
        count(*) as n_items
    from item_counts
    group by
        run_id,
        task,
        {%- for option in options %}
        n_option_{{ loop.index }}{{ ',' if not loop.last }}
        {%- endfor %}

)

select * from final
