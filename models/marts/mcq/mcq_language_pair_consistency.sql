{#- How alike two languages answer the same items, per run, task and pair of languages:
    answer agreement and Cohen's kappa on the items both answered, and where the options
    were scored, RankC and the Jensen-Shannon divergence of the option distributions; each
    with its interval and n. -#}
with compared as (select * from {{ ref('int_mcq_language_pairs_compared') }}),

final as (

    {{ mcq_run_mart_columns('compared') }}

)

select * from final
