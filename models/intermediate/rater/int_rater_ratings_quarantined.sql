{#- Ratings that never enter the measures, in the standard quarantine columns. -#}
with checked as (select * from {{ ref('int_rater_ratings_checked') }}),

final as (

    select
        source,
        source_row,
        {{ dbt.concat([
            "coalesce(dataset, '')", "'|'", "coalesce(item_id, '')", "'|'",
            "coalesce(rater_id, '')"
        ]) }} as record_key,
        rejected_column as column_name,
        case rejected_column
            when 'dataset' then dataset
            when 'item_id' then item_id
            when 'rater_id' then rater_id
            when 'category' then category
        end as value,
        rejection_reason as reason
    from checked
    where rejection_reason is not null

)

select * from final
