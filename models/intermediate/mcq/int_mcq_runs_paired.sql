{#- For models with a base and a shuffled run: per language, the items answered validly in
    both runs and how many of them point to the same original option in both. Incremental
    by model (a row pairs its two runs): only the models whose answers changed are paired
    again (macros/mcq_incremental_groups.sql). -#}
{{ config(
    materialized=incremental_materialization(),
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{{ mcq_forget_changed_groups(ref('int_mcq_runs_versioned'), ['model']) }}",
    post_hook="{{ mcq_keep_group_versions(ref('int_mcq_runs_versioned'), ['model']) }}",
) }}

with answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}
    where is_valid and {{ mcq_in_groups_to_compute(ref('int_mcq_runs_versioned'), ['model']) }}

),

base as (

    select * from answers where run = 'base'

),

shuffled as (

    select * from answers where run = 'shuffled'

),

final as (

    select
        base.model,
        base.language,
        count(*) as n_paired,
        count(*) filter (where base.original_option = shuffled.original_option) as n_same_original
    from base
    inner join shuffled
        on base.model = shuffled.model
        and base.item_id = shuffled.item_id
        and base.language = shuffled.language
    group by base.model, base.language

)

select * from final
