with coefficients as (select * from {{ ref('int_rater_coefficients_estimated') }}),

final as (

    select
        dataset,
        coefficient,
        weights,
        {{ rater_as_double('estimate') }} as estimate,
        {{ rater_as_double('std_error') }} as std_error,
        {{ rater_as_double('z') }} as z,
        {{ rater_as_double('p_value') }} as p_value,
        {{ rater_as_double('se_ci_low') }} as se_ci_low,
        {{ rater_as_double('se_ci_high') }} as se_ci_high,
        {{ rater_as_double('ci_low') }} as ci_low,
        {{ rater_as_double('ci_high') }} as ci_high,
        cast(n_items as {{ dbt.type_bigint() }}) as n_items,
        cast(n_raters as {{ dbt.type_bigint() }}) as n_raters,
        cast(n_categories as {{ dbt.type_bigint() }}) as n_categories,
        {{ rater_as_double('bootstrap_confidence') }} as bootstrap_confidence,
        cast(bootstrap_resamples as {{ dbt.type_bigint() }}) as bootstrap_resamples,
        cast(bootstrap_undefined_resamples as {{ dbt.type_bigint() }})
            as bootstrap_undefined_resamples,
        null_reason
    from coefficients
    where rater_id is null

)

select * from final
