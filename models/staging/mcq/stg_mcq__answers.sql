-- depends_on: {{ source('mcq_landing', 'answers') }}
{# One row per landed answer: run, task, item and language, the option it points to (or
    why none), the item's gold where the record carries one, and where it was read
    (docs/landing.md). A view on DuckDB, not a copy of every answer: the warehouse lock
    keeps the landing as it is for the whole build (concord_common/warehouse_lock.py), and
    its path is the project folder's. Spark's catalogue lives in memory, so there it stays
    a table. -#}
{{ config(materialized='view' if target.type == 'duckdb' else 'table') }}
with landed as (
    {{ read_landing('mcq', 'answers', landing_columns('mcq_landing', 'answers')) }}
),

final as (
    select * from landed
)

select * from final
