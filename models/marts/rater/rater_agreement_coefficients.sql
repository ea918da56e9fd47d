with coefficients as (select * from {{ ref('int_rater_coefficients_estimated') }}),

final as (

    select {{ contract_columns('coefficients') }}
    from coefficients
    where coefficients.rater_id is null

)

select * from final
