with coefficients as (select * from {{ ref('int_rater_coefficients_estimated') }}),

datasets as (select * from {{ ref('int_rater_datasets_described') }}),

pairs as (

    select
        coefficients.*,
        case
            when datasets.weights = 'identity' then 'unweighted' else datasets.weights
        end as declared_weights
    from coefficients
    inner join datasets
        on coefficients.dataset = datasets.dataset
    where coefficients.rater_id is not null

),

final as (

    select
        dataset,
        rater_id,
        other_rater_id,
        max(declared_weights) as weights,
        cast(max(n_items) as {{ dbt.type_bigint() }}) as n_items,
        {%- for measure, weighting, prefix in [
            ('cohen_kappa', "'unweighted'", 'cohen_kappa'),
            ('cohen_kappa', 'declared_weights', 'weighted_cohen_kappa'),
            ('percent_agreement', "'unweighted'", 'percent_agreement'),
        ] %}
        {%- set interval_columns = [
            ('estimate', ''), ('ci_low', '_ci_low'), ('ci_high', '_ci_high')
        ] %}
        {%- for column, suffix in interval_columns %}
        {{ rater_as_double(
            "max(case when coefficient = '" ~ measure ~ "' and weights = " ~ weighting
            ~ " then " ~ column ~ " end)"
        ) }} as {{ prefix }}{{ suffix }},
        {%- endfor %}
        {%- endfor %}
        {{ rater_as_double('max(bootstrap_confidence)') }} as bootstrap_confidence,
        cast(max(bootstrap_resamples) as {{ dbt.type_bigint() }}) as bootstrap_resamples
    from pairs
    group by dataset, rater_id, other_rater_id

)

select * from final
