with items as (

    select * from {{ ref('int_rater_items_measured') }}

),

final as (

    select
        dataset,
        item_id,
        n_raters,
        n_categories,
        n_categories_used,
        dispersion_index,
        fleiss_pi,
        one_minus_pi,
        group_disagreement,
        simpson_index,
        gini_simpson,
        entropy_bits,
        entropy_nats,
        entropy_norm_k,
        entropy_norm_n,
        null_reason
    from items

)

select * from final
