with source as (select * from {{ ref('rater_ratings') }}),

renamed as (

    select
        cast(dataset as {{ dbt.type_string() }}) as dataset,
        cast(item_id as {{ dbt.type_string() }}) as item_id,
        cast(rater_id as {{ dbt.type_string() }}) as rater_id,
        cast(category as {{ dbt.type_string() }}) as category,
        -- the seed's data row (DuckDB keeps the load order of a seed), for the quarantine
        {{ load_order_row_number() }} as source_row
    from source

)

select * from renamed
