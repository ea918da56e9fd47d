{#- Version 1 (deprecated): option counts by presented letter (n) and original option. -#}
{{ config(materialized='view') }}

with options as (

    select * from {{ ref('mcq_option_frequency', v=2) }}
    where {{ mcq_v1_rows() }}

),

final as (

    select
        model,
        variant as run,
        language,
        option,
        n_position as n,
        pct_position as pct,
        n_option as n_original,
        pct_option as pct_original,
        n_valid
    from options

)

select * from final
