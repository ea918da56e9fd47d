{#- Every bootstrap interval of the cross-lingual summary, one row per run, task, metric and
    (for entropy) language, with the settings that drew it. -#}
with bootstrapped as (select * from {{ ref('int_mcq_metrics_bootstrapped') }}),

final as (

    {{ mcq_run_mart_columns('bootstrapped') }}

)

select * from final
