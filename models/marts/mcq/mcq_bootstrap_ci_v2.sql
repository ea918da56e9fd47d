{#- Every bootstrap interval of the cross-lingual summary, one row per run, task, metric and
    (for entropy) language, with the settings that drew it. -#}
with bootstrapped as (select * from {{ ref('int_mcq_metrics_bootstrapped') }}),

described as (

    {{ mcq_with_run('bootstrapped') }}

),

final as (

    select {{ contract_columns('described') }}
    from described

)

select * from final
