{#- Models compared on the same items: per unordered pair of models and run, each one's full
    agreement on the items both answered completely, their difference in percentage points
    with a paired bootstrap interval, the discordant items and the exact McNemar p-value,
    raw and Holm-adjusted over the run's model pairs. -#}
with compared as (

    select * from {{ ref('int_mcq_model_pairs_compared') }}

),

final as (

    select
        model_a,
        model_b,
        run,
        cast(n_items as {{ dbt.type_bigint() }}) as n_items,
        full_agreement_pct_a,
        full_agreement_pct_b,
        difference_pp,
        ci_low,
        ci_high,
        cast(n_only_a as {{ dbt.type_bigint() }}) as n_only_a,
        cast(n_only_b as {{ dbt.type_bigint() }}) as n_only_b,
        p_value,
        p_value_holm,
        bootstrap_confidence,
        cast(bootstrap_resamples as {{ dbt.type_bigint() }}) as bootstrap_resamples
    from compared

)

select * from final
