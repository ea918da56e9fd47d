-- depends_on: {{ source('mcq_landing', 'runs') }}
{# One row per landed run of the cross-lingual study: a model (revision) under one prompt
    variant from one source (docs/landing.md). -#}
{% set columns = landing_columns('mcq_landing', 'runs') %}

with landed as (
    {{ read_landing('mcq', 'runs', columns) }}
),

final as (
    -- the model by its canonical name (seed model_aliases), as every mart names it
    {{ canonical_model_select('landed', columns) }}
)

select * from final
