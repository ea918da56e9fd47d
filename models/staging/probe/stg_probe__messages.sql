{#- The design's messages, trimmed as the probe trims them (probe/stimuli.py). -#}
with source as (
    {{ read_landed_seed('probe_seeds', 'probe_messages') }}
),

final as (
    select
        msg_id,
        trim(message) as message
    from source
)

select * from final
