-- depends_on: {{ source('probe_landing', 'scores') }}
with landed as (
    {{ read_landing('probe', 'scores', landing_columns('probe_landing', 'scores')) }}
),

final as (
    select * from landed
)

select * from final
