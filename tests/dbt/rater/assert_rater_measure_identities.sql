{#- The identities of the rater measures hold on every item of every dataset:
    GD = 1 - Pi = Simpson, DI = GD * K (n - 1) / ((K - 1) n), Gini-Simpson = (n - 1)/n * GD,
    and the per-item Pi averages to P-bar used by the kappas. -#}
with items as (select * from {{ ref('rater_item_disagreement') }}),

violations as (

    select
        dataset,
        item_id,
        group_disagreement,
        one_minus_pi,
        simpson_index,
        dispersion_index
    from items
    where abs(group_disagreement - one_minus_pi) > 1e-9
        or abs(group_disagreement - simpson_index) > 1e-9
        or abs(
            dispersion_index
            - group_disagreement * n_categories * (n_raters - 1)
            / ((n_categories - 1) * {{ rater_as_double('n_raters') }})
        ) > 1e-9
        or abs(
            gini_simpson
            - (n_raters - 1) * group_disagreement / {{ rater_as_double('n_raters') }}
        )
        > 1e-9

)

select * from violations
