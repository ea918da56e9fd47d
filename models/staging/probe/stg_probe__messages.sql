{#- The design's messages, trimmed as the probe trims them (probe/stimuli.py). -#}
with source as (select * from {{ ref('probe_messages') }}),

final as (
    select
        cast(msg_id as {{ dbt.type_int() }}) as msg_id,
        trim(cast(message as {{ dbt.type_string() }})) as message
    from source
)

select * from final
