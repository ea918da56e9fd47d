-- depends_on: {{ source('mcq_landing', 'option_scores') }}
{# One row per run, task, item, language and option that the source scored (lm-eval's
    log-likelihood tasks): the summed log-likelihood and the option's length
    (docs/landing.md). Empty for runs that give only a chosen letter. -#}
with landed as (
    {{ read_landing('mcq', 'option_scores', with_landing_provenance({
        'run_id': dbt.type_string(),
        'task': dbt.type_string(),
        'item_id': dbt.type_string(),
        'language': dbt.type_string(),
        'option_key': dbt.type_string(),
        'presented_position': dbt.type_int(),
        'loglik': 'double',
        'option_chars': dbt.type_int(),
        'option_bytes': dbt.type_int(),
    })) }}
),

final as (
    select * from landed
)

select * from final
