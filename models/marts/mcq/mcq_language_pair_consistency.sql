{#- How alike two languages answer the same items, per run, task and pair of languages:
    answer agreement and Cohen's kappa on the items both answered, and where the options
    were scored, RankC and the Jensen-Shannon divergence of the option distributions; each
    with its interval and n. -#}
with compared as (

    select * from {{ ref('int_mcq_language_pairs_compared') }}

),

runs as (

    select * from {{ ref('int_mcq_runs_versioned') }}

),

described as (

    select compared.*, runs.model, runs.model_revision, runs.variant
    from compared
    inner join runs on compared.run_id = runs.run_id

),

final as (

    select {{ contract_columns('described') }}
    from described

)

select * from final
