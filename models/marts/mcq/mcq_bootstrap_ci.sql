with bootstrapped as (

    select * from {{ ref('int_mcq_metrics_bootstrapped') }}

),

final as (

    select
        model,
        run,
        metric,
        estimate,
        boot_mean,
        ci_low,
        ci_high,
        n_resamples,
        confidence,
        seed
    from bootstrapped

)

select * from final
