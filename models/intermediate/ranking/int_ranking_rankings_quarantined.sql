{#- Rankings rows that never enter the statistics, in the standard quarantine columns.
    Rows with a defect carry its reason; the valid rows of a rejected ranking are listed
    too, so that nothing is left out silently. -#}
with checked as (select * from {{ ref('int_ranking_rankings_checked') }}),

final as (

    select
        'ranking_rankings' as source,
        source_row,
        {{ dbt.concat([
            "coalesce(rater_id, '')", "'|'", "coalesce(scenario_id, '')", "'|'",
            "coalesce(position_text, '')", "'|'", "coalesce(task_id, '')"
        ]) }} as record_key,
        coalesce(rejected_column, 'scenario_id') as column_name,
        case coalesce(rejected_column, 'scenario_id')
            when 'rater_id' then rater_id
            when 'scenario_id' then scenario_id
            when 'position' then position_text
            when 'task_id' then task_id
        end as value,
        coalesce(
            rejection_reason,
            {{ sql_string_literal(
                "ranking rejected: another row of this rater's ranking of the scenario is invalid"
            ) }}
        ) as reason
    from checked
    where is_ranking_rejected

)

select * from final
