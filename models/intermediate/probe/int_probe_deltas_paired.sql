{#- Paired by message: delta = index_rel_minus_unrel(group, msg) - index_rel_minus_unrel(baseline,
    msg), for every group other than the baseline (var probe_baseline_group). A message
    without its baseline row is caught by tests/dbt/probe/assert_probe_baseline_on_every_message. -#}
with group_averages as (select * from {{ ref('int_probe_indices_group_averaged') }}),

baseline as (
    select
        run_id,
        msg_id,
        index_rel_minus_unrel as baseline_index_rel_minus_unrel
    from group_averages
    where group_name = {{ sql_string_literal(var("probe_baseline_group")) }}
),

final as (
    select
        group_averages.run_id,
        group_averages.msg_id,
        group_averages.group_name,
        {{ sql_string_literal(var("probe_baseline_group")) }} as baseline_group,
        group_averages.index_rel_minus_unrel,
        baseline.baseline_index_rel_minus_unrel,
        group_averages.index_rel_minus_unrel
        - baseline.baseline_index_rel_minus_unrel as delta_vs_baseline
    from group_averages
    inner join baseline using (run_id, msg_id)
    where group_averages.group_name <> {{ sql_string_literal(var("probe_baseline_group")) }}
)

select * from final
