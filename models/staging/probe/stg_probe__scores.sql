-- depends_on: {{ source('probe_landing', 'scores') }}
{{ config(materialized='table') }}

with landed as (
    {{ read_landing('probe', 'scores', {
        'run_id': dbt.type_string(),
        'stimulus_id': dbt.type_int(),
        'msg_id': dbt.type_int(),
        'group_name': dbt.type_string(),
        'sender_name': dbt.type_string(),
        'stimulus': dbt.type_string(),
        'candidate_id': dbt.type_int(),
        'candidate': dbt.type_string(),
        'candidate_group': dbt.type_string(),
        'logprob': 'double',
        'n_tokens': dbt.type_int(),
        'token_logprobs': 'double[]',
        'token_ids': 'bigint[]',
    }) }}
),

final as (
    select * from landed
)

select * from final
