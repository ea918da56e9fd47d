{#- Every run and message scored for some group is also scored for the baseline group:
    otherwise the paired deltas of that message (int_probe_deltas_paired) would silently
    drop out. One row per run and message without its baseline. -#}
with group_averages as (select * from {{ ref('int_probe_indices_group_averaged') }}),

final as (
    select
        run_id,
        msg_id
    from group_averages
    group by run_id, msg_id
    having sum(
        case
            when group_name = {{ sql_string_literal(var("probe_baseline_group")) }} then 1
            else 0
        end
    ) = 0
)

select * from final
