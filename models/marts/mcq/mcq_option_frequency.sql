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
        {{ share_pct('n_presented', 'n_valid') }} as pct,
        n_original,
        {{ share_pct('n_original', 'n_valid') }} as pct_original,
        n_valid
    from option_counts

)

select * from final
