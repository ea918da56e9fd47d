-- depends_on: {{ source('probe_landing', 'scores') }}
with landed as (
    {{ read_landing('probe', 'scores', probe_stimulus_columns({
        'candidate_id': dbt.type_int(),
        'candidate': dbt.type_string(),
        'candidate_group': dbt.type_string(),
        'logprob': 'double',
        'n_tokens': dbt.type_int(),
        'token_logprobs': 'double[]',
        'token_ids': 'bigint[]',
    })) }}
),

final as (
    select * from landed
)

select * from final
