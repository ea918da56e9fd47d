with source as (select * from {{ ref('rater_datasets') }}),

renamed as (

    select
        cast(dataset as {{ dbt.type_string() }}) as dataset,
        cast(weights as {{ dbt.type_string() }}) as weights
    from source

)

select * from renamed
