{#- Fails, one row per model revision and variant, when two runs become one model under its
    canonical name (seed model_aliases) with the same revision and variant: the marts would
    hold the model twice. The row names both runs and their spellings; register the answers
    under one spelling, or give the runs different variants. -#}
with runs as (select * from {{ ref('stg_mcq__runs') }}),

final as (

    select
        model,
        model_revision,
        variant,
        count(*) as n_runs,
        'model ' || model || coalesce(' revision ' || model_revision, '') || ', variant '
            || variant || ' is ' || cast(count(*) as {{ dbt.type_string() }}) || ' runs: '
            || {{ string_agg_ordered(
                "run_id || ' (' || model_as_landed || ')'", "', '", 'run_id'
            ) }} as problem
    from runs
    group by model, model_revision, variant
    having count(*) > 1

)

select * from final
