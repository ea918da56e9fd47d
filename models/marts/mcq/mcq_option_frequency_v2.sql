{#- Per run, task, language and option key: how often the option was chosen, and how often
    whatever was shown at its position was chosen (position bias), as counts and shares of
    the language's valid answers. -#}
with option_counts as (select * from {{ ref('int_mcq_options_counted') }}),

shares as (

    select
        *,
        {{ share_pct('n_option', 'n_valid') }} as pct_option,
        {{ share_pct('n_position', 'n_valid') }} as pct_position
    from option_counts

),

final as (

    select {{ contract_columns('shares') }}
    from shares

)

select * from final
