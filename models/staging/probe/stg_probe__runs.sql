-- depends_on: {{ source('probe_landing', 'runs') }}
{# One row per landed run of the probe (probe/landing.py). -#}
{% set columns = {
    'run_id': dbt.type_string(),
    'model': dbt.type_string(),
    'config_hash': dbt.type_string(),
    'design_hash': dbt.type_string(),
    'tokenizer': dbt.type_string(),
    'dtype': dbt.type_string(),
    'device': dbt.type_string(),
    'device_map': dbt.type_string(),
    'revision': dbt.type_string(),
    'attention': dbt.type_string(),
    'batch_size': dbt.type_int(),
    'world_size': dbt.type_int(),
    'rank_requests': 'integer[]',
    'rank_tokens': 'bigint[]',
    'template_id': dbt.type_string(),
    'prompt_template': dbt.type_string(),
    'candidate_set': 'varchar[]',
    'candidate_groups': 'varchar[]',
    'n_stimuli': dbt.type_int(),
    'n_candidates': dbt.type_int(),
    'started_at': 'timestamp with time zone',
    'finished_at': 'timestamp with time zone',
    'scoring_seconds': 'double',
    'torch_version': dbt.type_string(),
    'transformers_version': dbt.type_string(),
} %}

with landed as (
    {{ read_landing('probe', 'runs', columns) }}
),

final as (
    -- the model by its canonical name (seed model_aliases), as every mart names it
    {{ canonical_model_select('landed', columns) }}
)

select * from final
