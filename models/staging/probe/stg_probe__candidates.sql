{#- The design's candidates, with their leading space (what the model continues with). -#}
{{ config(materialized='table') }}

with source as (
    {{ read_landed_seed('probe_seeds', 'probe_candidates') }}
),

final as (
    select
        candidate_id,
        candidate,
        candidate_group
    from source
)

select * from final
