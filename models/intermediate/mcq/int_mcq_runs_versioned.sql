{#- One row per model and run: the version of its normalised answers, a hash of the
    versions of the files they come from (content, registry line, the item files and
    translations they were matched against: file_version). The models downstream that are
    incremental by group compute a group again only when its version changed
    (macros/mcq_incremental_groups.sql). -#}
with answer_files as (

    select distinct
        model,
        run,
        source_file,
        file_version
    from {{ ref('int_mcq_answers_normalised') }}

),

final as (

    select
        model,
        run,
        {{ dbt.hash(string_agg_ordered(
            "source_file || '|' || file_version", "','", 'source_file')) }} as input_version
    from answer_files
    group by model, run

)

select * from final
