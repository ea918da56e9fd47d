{#- Version 1 (deprecated): the bootstrap intervals under their 0.1 metric names. -#}
{{ config(materialized='view') }}

with intervals as (

    select * from {{ ref('mcq_bootstrap_ci', v=2) }}
    where {{ mcq_v1_rows() }} and metric <> 'fleiss_kappa'  -- not in 0.1

),

final as (

    select
        model,
        variant as run,
        case
            when metric = 'full_agreement_pct' then 'agreement_pct'
            when metric = 'no_majority_pct' then 'all_different_pct'
            when metric = 'entropy_bits' then 'entropy_' || language || '_bits'
            else metric
        end as metric,
        estimate,
        boot_mean,
        ci_low,
        ci_high,
        bootstrap_resamples as n_resamples,
        bootstrap_confidence as confidence,
        bootstrap_seed as seed
    from intervals

)

select * from final
