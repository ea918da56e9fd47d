with group_averages as (select * from {{ ref('int_probe_indices_group_averaged') }}),

final as (
    select
        run_id,
        msg_id,
        group_name,
        n_names,
        index_reliable_like,
        index_unreliable_like,
        index_rel_minus_unrel
    from group_averages
)

select * from final
