with deltas as (select * from {{ ref('int_probe_deltas_paired') }}),

final as (
    select
        run_id,
        msg_id,
        group_name,
        baseline_group,
        index_rel_minus_unrel,
        baseline_index_rel_minus_unrel,
        delta_vs_baseline
    from deltas
)

select * from final
