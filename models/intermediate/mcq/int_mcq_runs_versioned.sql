{#- One row per run (a model revision under one variant): the version of its normalised
    answers, a hash of the versions of the files they come from (content, registry line, the
    item files and translations they were matched against: file_version). The models
    downstream that are incremental by group compute a group again only when its version
    changed (macros/mcq_incremental_groups.sql). revision_key: the model and its revision as
    one non-null key, the group of the variant/baseline pairing. -#}
with answer_files as (

    -- the files first (a few per run), then each file's version: not one per answer
    select distinct run_id, source_file, content_hash
    from {{ ref('int_mcq_answers_normalised') }}

),

runs as (select * from {{ ref('stg_mcq__runs') }}),

file_versions as (

    select
        runs.run_id,
        runs.model,
        runs.model_revision,
        runs.variant,
        answer_files.source_file,
        {{ mcq_file_version('runs', 'answer_files') }} as file_version
    from answer_files
    inner join runs
        on answer_files.run_id = runs.run_id

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
    from file_versions
    group by run_id, model, model_revision, variant

)

select * from final
