{#- Every run and message scored for some group is also scored for the baseline group:
    otherwise the paired deltas of that message would silently drop out. -#}
with group_averages as (select * from {{ ref('int_probe_indices_group_averaged') }}),

baseline as (
    select run_id, msg_id
    from group_averages
    where group_name = {{ sql_string_literal(var("probe_baseline_group")) }}
),

final as (
    select
        group_averages.run_id,
        group_averages.msg_id,
        group_averages.group_name
    from group_averages
    left join baseline
        on group_averages.run_id = baseline.run_id
        and group_averages.msg_id = baseline.msg_id
    where baseline.run_id is null
)

select * from final
