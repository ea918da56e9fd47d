{#- The same summary after averaging over each group's names: one row per message enters. -#}
with group_averages as (select * from {{ ref('int_probe_indices_group_averaged') }}),

final as (
    select
        run_id,
        group_name,
        {{ probe_index_summary_columns() }}
    from group_averages
    group by run_id, group_name
)

select * from final
