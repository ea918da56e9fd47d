-- depends_on: {{ source('probe_landing', 'stimuli') }}
with landed as (
    {{ read_landing('probe', 'stimuli', probe_stimulus_columns({
        'prompt': dbt.type_string(),
        'n_prompt_tokens': dbt.type_int(),
    })) }}
),

final as (
    select * from landed
)

select * from final
