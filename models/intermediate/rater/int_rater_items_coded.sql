{#- Every dataset's rating matrix, one row per item: each rater's category as its
    category_position (int_rater_categories_declared), in rater_position order
    (int_rater_raters_ordered), -1 where the rater did not rate the item, joined by ','.
    Counts before Python: int_rater_coefficients_estimated reads a row per item, not a row
    per rating; its bootstrap resamples items, so the item is the grain it cannot go below. -#}
with ratings as (select * from {{ ref('int_rater_ratings_validated') }}),

declared as (select * from {{ ref('int_rater_categories_declared') }}),

raters as (select * from {{ ref('int_rater_raters_ordered') }}),

items as (

    select distinct
        dataset,
        item_id
    from ratings

),

coded as (

    select
        ratings.dataset,
        ratings.item_id,
        ratings.rater_id,
        declared.category_position
    from ratings
    inner join declared
        on
            ratings.dataset = declared.dataset
            and ratings.category = declared.category

),

cells as (

    select
        items.dataset,
        items.item_id,
        raters.rater_position,
        coalesce(coded.category_position, -1) as category_position
    from items
    inner join raters
        on items.dataset = raters.dataset
    left join coded
        on
            items.dataset = coded.dataset
            and items.item_id = coded.item_id
            and raters.rater_id = coded.rater_id

),

final as (

    select
        dataset,
        item_id,
        {{ string_agg_ordered(
            'cast(category_position as ' ~ dbt.type_string() ~ ')', "','", 'rater_position'
        ) }} as codes
    from cells
    group by dataset, item_id

)

select * from final
