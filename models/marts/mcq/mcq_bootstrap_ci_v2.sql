{#- Every bootstrap interval of the cross-lingual summary, one row per run, task, metric and
    (for entropy) language, with the settings that drew it. -#}
with bootstrapped as (

    select * from {{ ref('int_mcq_metrics_bootstrapped') }}

),

runs as (

    select * from {{ ref('int_mcq_runs_versioned') }}

),

described as (

    select bootstrapped.*, runs.model, runs.model_revision, runs.variant
    from bootstrapped
    inner join runs on bootstrapped.run_id = runs.run_id

),

final as (

    select {{ contract_columns('described') }}
    from described

)

select * from final
