-- MetricFlow's time spine (required by dbt's semantic layer): one row per day. The marts are
-- snapshots of a build, not time series, so the spine only has to exist and cover today.
with days as (
    {{ dbt.date_spine(
        datepart="day",
        start_date="cast('2020-01-01' as date)",
        end_date="cast('2036-01-01' as date)",
    ) }}
),

final as (
    select cast(date_day as date) as date_day
    from days
)

select * from final
