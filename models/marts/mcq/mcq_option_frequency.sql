with option_counts as (

    select * from {{ ref('int_mcq_options_counted') }}

),

final as (

    select
        model,
        run,
        language,
        option,
        n_presented as n,
        100.0 * n_presented / nullif(n_valid, 0) as pct,
        n_original,
        100.0 * n_original / nullif(n_valid, 0) as pct_original,
        n_valid
    from option_counts

)

select * from final
