-- depends_on: {{ source('probe_landing', 'stimulus_indices') }}
{{ config(materialized='table') }}

with landed as (
    {{ read_probe_landing('stimulus_indices', {
        'run_id': dbt.type_string(),
        'stimulus_id': dbt.type_int(),
        'msg_id': dbt.type_int(),
        'group_name': dbt.type_string(),
        'sender_name': dbt.type_string(),
        'stimulus': dbt.type_string(),
        'prompt': dbt.type_string(),
        'n_prompt_tokens': dbt.type_int(),
        'index_reliable_like': 'double',
        'index_unreliable_like': 'double',
        'index_rel_minus_unrel': 'double',
        'top_choice': dbt.type_string(),
        'p_top': 'double',
    }) }}
),

final as (
    select * from landed
)

select * from final
