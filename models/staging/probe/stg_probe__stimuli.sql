-- depends_on: {{ source('probe_landing', 'stimuli') }}
{{ config(materialized='table') }}

with landed as (
    {{ read_landing('probe', 'stimuli', {
        'run_id': dbt.type_string(),
        'stimulus_id': dbt.type_int(),
        'msg_id': dbt.type_int(),
        'group_name': dbt.type_string(),
        'sender_name': dbt.type_string(),
        'stimulus': dbt.type_string(),
        'prompt': dbt.type_string(),
        'n_prompt_tokens': dbt.type_int(),
    }) }}
),

final as (
    select * from landed
)

select * from final
