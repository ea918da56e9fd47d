{#- The reference's df_group: the indices of one message averaged over the group's names,
    which damps the idiosyncrasies of a single name. -#}
with stimuli as (select * from {{ ref('int_probe_stimuli_indexed') }}),

final as (
    select
        run_id,
        msg_id,
        group_name,
        count(*) as n_names,
        avg(index_reliable_like) as index_reliable_like,
        avg(index_unreliable_like) as index_unreliable_like,
        avg(index_rel_minus_unrel) as index_rel_minus_unrel
    from stimuli
    group by run_id, msg_id, group_name
)

select * from final
