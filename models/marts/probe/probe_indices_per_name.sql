with stimuli as (
    select * from {{ ref('int_probe_stimuli_indexed') }}
),

final as (
    select
        run_id,
        stimulus_id,
        msg_id,
        group_name,
        sender_name,
        stimulus,
        index_reliable_like,
        index_unreliable_like,
        index_rel_minus_unrel,
        top_choice,
        p_top
    from stimuli
)

select * from final
