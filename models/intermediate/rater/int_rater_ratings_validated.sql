{#- The ratings that enter the measures: every check in int_rater_ratings_checked passed. -#}
with checked as (select * from {{ ref('int_rater_ratings_checked') }}),

final as (

    select
        dataset,
        item_id,
        rater_id,
        category
    from checked
    where rejection_reason is null

)

select * from final
