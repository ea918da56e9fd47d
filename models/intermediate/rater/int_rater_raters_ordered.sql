{#- Each dataset's raters, numbered from 0 in rater_id order: the columns of the dataset's
    rating matrix (int_rater_items_coded). -#}
with ratings as (select * from {{ ref('int_rater_ratings_validated') }}),

raters as (

    select distinct
        dataset,
        rater_id
    from ratings

),

final as (

    select
        dataset,
        rater_id,
        {{ position_from_zero('dataset', 'rater_id') }} as rater_position
    from raters

)

select * from final
