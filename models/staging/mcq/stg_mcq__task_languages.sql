{#- The languages a task declares it is compared in (seeds/mcq/mcq_task_languages.csv), one
    row per task and language. -#}
with source as (
    {{ read_landed_seed('mcq_seeds', 'mcq_task_languages') }}
),

final as (

    select
        trim(task) as task,
        trim(language) as language,
        source_file,
        source_row
    from source

)

select * from final
