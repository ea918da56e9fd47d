{#- The model aliases as landed: where their rules are tested. The staged runs apply them
    (macros/model_aliases.sql), reading the same landed table. -#}
{{ config(materialized='table') }}

with source as (
    {{ read_landed_seed('models_seeds', 'model_aliases') }}
),

final as (
    select
        spelling,
        model
    from source
)

select * from final
