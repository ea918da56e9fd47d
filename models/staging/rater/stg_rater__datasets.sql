{{ config(materialized='table') }}

with source as (
    {{ read_landed_seed('rater_seeds', 'rater_datasets') }}
),

renamed as (

    select
        dataset,
        weights
    from source

)

select * from renamed
