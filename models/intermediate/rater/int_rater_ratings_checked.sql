{#- Each rating with why it cannot enter the measures (null when it can): a missing key, a
    duplicate (the same rater rating the same item twice: neither is kept, since which one
    is right is unknown), or a category that is not declared for the dataset. -#}
with ratings as (select * from {{ ref('int_rater_ratings_unioned') }}),

declared as (select * from {{ ref('int_rater_categories_declared') }}),

counted as (

    select
        ratings.*,
        count(*) over (partition by dataset, item_id, rater_id) as n_ratings_of_key
    from ratings

),

checked as (

    select
        counted.*,
        case
            when counted.dataset is null then 'dataset'
            when counted.item_id is null then 'item_id'
            when counted.rater_id is null then 'rater_id'
            when counted.n_ratings_of_key > 1 then 'rater_id'
            when declared.category is null then 'category'
        end as rejected_column,
        case
            when counted.dataset is null then 'missing dataset'
            when counted.item_id is null then 'missing item_id'
            when counted.rater_id is null then 'missing rater_id'
            when counted.n_ratings_of_key > 1
                then 'duplicate rating: this rater rated this item more than once'
            when counted.category is null then 'missing category'
            -- a reason is one string, kept whole as the quarantine shows it
            when declared.category is null
                then 'category not declared for this dataset (seed rater_categories, or var mcq_options for derived datasets)'  -- noqa: LT05
        end as rejection_reason
    from counted
    -- `on`, not `using`: Spark would put the join keys first in counted.*
    left join declared
        on counted.dataset = declared.dataset
        and counted.category = declared.category

)

select * from checked
