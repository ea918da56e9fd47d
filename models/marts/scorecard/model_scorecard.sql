{#- One row per model revision and task under the baseline variant (mcq_baseline_variant):
    its row of model_scorecard_by_variant, whose order effect is then the variant and
    language whose answers moved most against it. -#}
with scorecard as (select * from {{ ref('model_scorecard_by_variant') }}),

final as (

    select {{ contract_columns('scorecard') }}
    from scorecard
    where variant = '{{ var("mcq_baseline_variant") }}'

)

select * from final
