-- depends_on: {{ source('mcq_landing', 'runs') }}
{# One row per landed run of the cross-lingual study: a model (revision) under one prompt
    variant from one source (docs/landing.md). -#}
{% set columns = {
    'run_id': dbt.type_string(),
    'model': dbt.type_string(),
    'model_revision': dbt.type_string(),
    'variant': dbt.type_string(),
    'prompt_template': dbt.type_string(),
    'prompt_template_hash': dbt.type_string(),
    'n_fewshot': dbt.type_int(),
    'harness': dbt.type_string(),
    'harness_version': dbt.type_string(),
    'source_kind': dbt.type_string(),
    'source_folder': dbt.type_string(),
    'presented_option_order': dbt.type_string(),
    'reader_version': dbt.type_string(),
    'landed_at': 'timestamp with time zone',
} %}

with landed as (
    {{ read_landing('mcq', 'runs', columns) }}
),

final as (
    -- the model by its canonical name (seed model_aliases), as every mart names it
    {{ canonical_model_select('landed', columns) }}
)

select * from final
