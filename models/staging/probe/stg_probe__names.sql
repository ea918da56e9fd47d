{#- The design's names and their groups, trimmed as the probe trims them. -#}
with source as (select * from {{ ref('probe_names') }}),

final as (
    select
        trim(cast(group_name as {{ dbt.type_string() }})) as group_name,
        trim(cast(sender_name as {{ dbt.type_string() }})) as sender_name
    from source
)

select * from final
