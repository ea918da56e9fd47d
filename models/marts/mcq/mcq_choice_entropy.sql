with bootstrapped as (

    select * from {{ ref('int_mcq_metrics_bootstrapped') }}

),

final as (

    select
        model,
        run,
        replace(replace(metric, 'entropy_', ''), '_bits', '') as language,
        estimate as entropy_bits,
        -- normalised by the entropy of a uniform choice among the options
        estimate / log2({{ var('mcq_options') | length }}) as entropy_norm,
        boot_mean,
        ci_low,
        ci_high
    from bootstrapped
    where metric like 'entropy!_%!_bits' escape '!'

)

select * from final
