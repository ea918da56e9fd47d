-- depends_on: {{ source('probe_landing', 'stimuli') }}
with landed as (
    {{ read_landing('probe', 'stimuli', landing_columns('probe_landing', 'stimuli')) }}
),

final as (
    select * from landed
)

select * from final
