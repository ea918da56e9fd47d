with category_kappas as (select * from {{ ref('int_rater_category_kappas_estimated') }}),

final as (

    select {{ contract_columns('category_kappas') }}
    from category_kappas

)

select * from final
