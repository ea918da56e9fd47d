{#- Per run, task and language: the Shannon entropy (bits) of the choices by presented
    position, normalised by log2 of the number of options, with its bootstrap interval. -#}
with bootstrapped as (

    select * from {{ ref('int_mcq_metrics_bootstrapped') }}
    where metric = 'entropy_bits'

),

described as (

    {{ mcq_with_run('bootstrapped') }}

),

final as (

    select
        run_id,
        model,
        model_revision,
        variant,
        task,
        language,
        estimate as entropy_bits,
        -- normalised by the entropy of a uniform choice among the options
        estimate / log2({{ var('mcq_options') | length }}) as entropy_norm,
        boot_mean,
        ci_low,
        ci_high,
        bootstrap_resamples,
        bootstrap_confidence,
        bootstrap_seed
    from described

)

select * from final
