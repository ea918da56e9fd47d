{#- Every per-item measure of the rater document, by the macros in rater_measures.sql over
    the item's category counts. -#}
with counts as (select * from {{ ref('int_rater_counts_aggregated') }}),

aggregated as (

    select
        dataset,
        item_id,
        cast(sum(n_ratings) as {{ dbt.type_bigint() }}) as n_raters,
        cast(count(*) as {{ dbt.type_bigint() }}) as n_categories,
        cast(sum(case when n_ratings > 0 then 1 else 0 end) as {{ dbt.type_bigint() }})
            as n_categories_used,
        cast(sum(n_ratings * n_ratings) as {{ dbt.type_bigint() }}) as sum_sq,
        sum({{ rater_n_ln_n('n_ratings') }}) as sum_n_ln_n
    from counts
    group by dataset, item_id

),

measured as (

    select
        dataset,
        item_id,
        n_raters,
        n_categories,
        n_categories_used,
        {{ rater_dispersion_index('n_raters', 'sum_sq', 'n_categories') }} as dispersion_index,
        {{ rater_fleiss_pi('n_raters', 'sum_sq') }} as fleiss_pi,
        {{ rater_one_minus_pi('n_raters', 'sum_sq') }} as one_minus_pi,
        {{ rater_group_disagreement('n_raters', 'sum_sq') }} as group_disagreement,
        {{ rater_simpson_index('n_raters', 'sum_sq') }} as simpson_index,
        {{ rater_gini_simpson('n_raters', 'sum_sq') }} as gini_simpson,
        {{ rater_entropy_bits('n_raters', 'sum_n_ln_n', 'n_categories_used') }} as entropy_bits,
        {{ rater_entropy_nats('n_raters', 'sum_n_ln_n', 'n_categories_used') }} as entropy_nats,
        {{ rater_entropy_norm_k('n_raters', 'sum_n_ln_n', 'n_categories_used', 'n_categories') }}
            as entropy_norm_k,
        {{ rater_entropy_norm_n('n_raters', 'sum_n_ln_n', 'n_categories_used') }}
            as entropy_norm_n,
        {{ rater_null_reason('n_raters', 'n_categories') }} as null_reason
    from aggregated

)

select * from measured
