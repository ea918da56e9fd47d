{#- The languages a task declares it is compared in (seeds/mcq/mcq_task_languages.csv), one
    row per task and language, as landed: the reader checked each task as a name and landed
    each language canonical, and refused a blank or repeated task and language (the
    source's formats and primary_key), so nothing is left to trim here. -#}
with source as (
    {{ read_landed_seed('mcq_seeds', 'mcq_task_languages') }}
),

final as (

    select
        task,
        language,
        source_file,
        source_row
    from source

)

select * from final
