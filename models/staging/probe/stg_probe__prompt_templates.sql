{#- The design's prompt templates, as the probe reads them (probe/stimuli.py). -#}
{{ config(materialized='table') }}

with source as (
    {{ read_landed_seed('probe_seeds', 'probe_prompt_templates') }}
),

final as (
    select
        template_id,
        template
    from source
)

select * from final
