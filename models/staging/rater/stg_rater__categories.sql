{{ config(materialized='table') }}

with source as (
    {{ read_landed_seed('rater_seeds', 'rater_categories') }}
),

renamed as (

    select
        dataset,
        category
    from source

)

select * from renamed
