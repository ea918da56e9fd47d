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
        cast(
            row_number() over (partition by dataset order by rater_id) - 1
            as {{ dbt.type_bigint() }}
        ) as rater_position
    from raters

)

select * from final
