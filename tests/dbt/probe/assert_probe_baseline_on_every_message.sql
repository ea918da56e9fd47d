{#- Every run and message scored for some group is also scored for the baseline group:
    otherwise the paired deltas of that message (int_probe_deltas_paired) would silently
    drop out. -#}
with group_averages as (select * from {{ ref('int_probe_indices_group_averaged') }}),

deltas as (select * from {{ ref('int_probe_deltas_paired') }}),

final as (
    select
        group_averages.run_id,
        group_averages.msg_id,
        group_averages.group_name
    from group_averages
    left join deltas
        on group_averages.run_id = deltas.run_id
        and group_averages.msg_id = deltas.msg_id
        and group_averages.group_name = deltas.group_name
    where group_averages.group_name <> {{ sql_string_literal(var("probe_baseline_group")) }}
        and deltas.run_id is null
)

select * from final
