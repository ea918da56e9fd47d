{#- The design's names and their groups, trimmed as the probe trims them. -#}
with source as (
    {{ read_landed_seed('probe_seeds', 'probe_names') }}
),

final as (
    select
        trim(group_name) as group_name,
        trim(sender_name) as sender_name,
        sender_gender,
        group_label
    from source
)

select * from final
