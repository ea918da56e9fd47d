{#- A table, not a view: the warehouse holds the landing as it was at build time, and the
    relative landing path is resolved once, from the project folder. -#}
{{ config(materialized='table') }}

with source as (
    {{ read_landed_seed('rater_seeds', 'rater_ratings') }}
),

renamed as (

    select
        dataset,
        item_id,
        rater_id,
        category,
        -- the file's data row, for the quarantine
        source_row
    from source

)

select * from renamed
