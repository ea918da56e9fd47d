-- depends_on: {{ source('probe_landing', 'runs') }}
{# One row per landed run of the probe (probe/landing.py). -#}
{% set columns = landing_columns('probe_landing', 'runs') %}

with landed as (
    {{ read_landing('probe', 'runs', columns) }}
),

final as (
    -- the model by its canonical name (seed model_aliases), as every mart names it
    {{ canonical_model_select('landed', columns) }}
)

select * from final
