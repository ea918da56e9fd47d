{#- How many raters put each item in each declared category, with a zero row for a declared
    category nobody chose (K counts the declared categories, not the observed ones). -#}
with ratings as (select * from {{ ref('int_rater_ratings_validated') }}),

declared as (select * from {{ ref('int_rater_categories_declared') }}),

items as (

    select distinct
        dataset,
        item_id
    from ratings

),

observed as (

    select
        dataset,
        item_id,
        category,
        count(*) as n_ratings
    from ratings
    group by dataset, item_id, category

),

final as (

    select
        items.dataset,
        items.item_id,
        declared.category,
        coalesce(observed.n_ratings, 0) as n_ratings
    from items
    inner join declared using (dataset)
    left join observed using (dataset, item_id, category)

)

select * from final
