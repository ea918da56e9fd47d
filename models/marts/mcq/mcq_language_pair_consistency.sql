{#- How alike two languages answer the same items, per model, run and pair of languages:
    answer agreement and Cohen's kappa on the items both answered, and where the options
    were scored, RankC and the Jensen-Shannon divergence of the option distributions; each
    with its interval and n. -#}
with compared as (

    select * from {{ ref('int_mcq_language_pairs_compared') }}

),

final as (

    select
        model,
        run,
        language_a,
        language_b,
        cast(n_items as {{ dbt.type_bigint() }}) as n_items,
        agreement_pct,
        agreement_ci_low,
        agreement_ci_high,
        cohen_kappa,
        cohen_kappa_std_error,
        cohen_kappa_ci_low,
        cohen_kappa_ci_high,
        cast(n_scored_items as {{ dbt.type_bigint() }}) as n_scored_items,
        rank_c,
        rank_c_ci_low,
        rank_c_ci_high,
        js_divergence,
        js_divergence_ci_low,
        js_divergence_ci_high,
        confidence
    from compared

)

select * from final
