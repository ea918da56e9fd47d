{#- One row per run, task and item: its disagreement type over the task's languages.
    Incremental by run: the groups of int_mcq_items_classified computed since this table
    last read them (macros/mcq_incremental_groups.sql). -#}
{{ config(**mcq_incremental_by_group(
    "mcq_kept_group_versions(ref('int_mcq_runs_versioned'), 'int_mcq_items_classified')",
    ['run_id'],
)) }}

with items as (

    select * from {{ ref('int_mcq_items_classified') }}
    where {{ mcq_in_groups_to_compute(
        mcq_kept_group_versions(ref('int_mcq_runs_versioned'), 'int_mcq_items_classified'),
        ['run_id']
    ) }}

),

final as (

    select {{ contract_columns('items') }}
    from items

)

select * from final
