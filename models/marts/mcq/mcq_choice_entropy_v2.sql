{#- Per run, task and language: the Shannon entropy (bits) of the choices by presented
    position, normalised by log2 of the number of options, with its bootstrap interval. -#}
with bootstrapped as (

    select * from {{ ref('int_mcq_metrics_bootstrapped') }}
    where metric = 'entropy_bits'

),

runs as (

    select * from {{ ref('int_mcq_runs_versioned') }}

),

final as (

    select
        bootstrapped.run_id,
        runs.model,
        runs.model_revision,
        runs.variant,
        bootstrapped.task,
        bootstrapped.language,
        bootstrapped.estimate as entropy_bits,
        -- normalised by the entropy of a uniform choice among the options
        bootstrapped.estimate / log2({{ var('mcq_options') | length }}) as entropy_norm,
        bootstrapped.boot_mean,
        bootstrapped.ci_low,
        bootstrapped.ci_high,
        bootstrapped.bootstrap_resamples,
        bootstrapped.bootstrap_confidence,
        bootstrapped.bootstrap_seed
    from bootstrapped
    inner join runs on bootstrapped.run_id = runs.run_id

)

select * from final
