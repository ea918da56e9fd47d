-- depends_on: {{ source('mcq_landing', 'items') }}
{# The items of each task, one row per item, language and option (docs/landing.md): an
    order-control item file's options land under their own keys, once. -#}
with landed as (
    {{ read_landing('items', 'items', landing_columns('mcq_landing', 'items')) }}
),

final as (
    select * from landed
)

select * from final
