{#- One row per run, task, item and language: the option each language chose (the item's own
    key), where it was shown, and whether it departs from the item's majority. The long
    form every per-language query starts from. Incremental by run, as the item fact
    (macros/mcq_incremental_groups.sql). -#}
{{ config(**mcq_incremental_by_group(
    "mcq_kept_group_versions(ref('int_mcq_runs_versioned'), 'int_mcq_items_classified')",
    ['run_id'],
)) }}

with answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}
    where {{ mcq_in_groups_to_compute(
        mcq_kept_group_versions(ref('int_mcq_runs_versioned'), 'int_mcq_items_classified'),
        ['run_id']
    ) }}

),

items as (select * from {{ ref('int_mcq_items_classified') }}),

departing as (

    select
        answers.*,
        case
            when items.disagreement_type <> 'incomplete' then coalesce(
                items.majority_option is not null
                and answers.chosen_option <> items.majority_option, false
            )
        end as departs
    from answers
    inner join items using (run_id, task, item_id)

),

final as (

    select {{ contract_columns('departing') }}
    from departing

)

select * from final
