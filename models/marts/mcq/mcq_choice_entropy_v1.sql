{#- Version 1 (deprecated): choice entropy per model, run and language. -#}
{{ config(materialized='view') }}

with entropy as (

    select * from {{ ref('mcq_choice_entropy', v=2) }}
    where {{ mcq_v1_rows() }}

),

final as (

    select
        model,
        variant as run,
        language,
        entropy_bits,
        entropy_norm,
        boot_mean,
        ci_low,
        ci_high
    from entropy

)

select * from final
