{#- One row per run (a model revision under one variant): the version of its normalised
    answers, a hash of the versions of the files they come from (content, registry line, the
    item files and translations they were matched against: file_version). The models
    downstream that are incremental by group compute a group again only when its version
    changed (macros/mcq_incremental_groups.sql). revision_key: the model and its revision as
    one non-null key, the group of the variant/baseline pairing. -#}
with answer_files as (

    select distinct
        run_id,
        model,
        model_revision,
        variant,
        source_file,
        file_version
    from {{ ref('int_mcq_answers_normalised') }}

),

final as (

    select
        run_id,
        model,
        model_revision,
        {{ mcq_revision_key('model', 'model_revision') }} as revision_key,
        variant,
        {{ dbt.hash(string_agg_ordered(
            "source_file || '|' || file_version", "','", 'source_file')) }} as input_version
    from answer_files
    group by run_id, model, model_revision, variant

)

select * from final
