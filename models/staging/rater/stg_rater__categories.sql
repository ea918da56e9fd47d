with source as (select * from {{ ref('rater_categories') }}),

renamed as (

    select
        cast(dataset as {{ dbt.type_string() }}) as dataset,
        cast(category as {{ dbt.type_string() }}) as category
    from source

)

select * from renamed
