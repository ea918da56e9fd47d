with category_kappas as (select * from {{ ref('int_rater_category_kappas_estimated') }}),

final as (

    select
        cast(dataset as {{ dbt.type_string() }}) as dataset,
        cast(category as {{ dbt.type_string() }}) as category,
        cast(n_ratings as {{ dbt.type_bigint() }}) as n_ratings,
        {{ rater_as_double('category_share') }} as category_share,
        {{ rater_as_double('category_kappa') }} as category_kappa,
        cast(null_reason as {{ dbt.type_string() }}) as null_reason
    from category_kappas

)

select * from final
