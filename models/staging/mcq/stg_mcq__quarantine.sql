-- depends_on: {{ source('mcq_landing', 'quarantine') }}
{# The records each run set aside instead of answering (two records of one item and
    language, a language the study does not compare), with their reason
    (docs/landing.md). -#}
with landed as (
    {{ read_landing('mcq', 'quarantine', landing_columns('mcq_landing', 'quarantine')) }}
),

final as (
    select * from landed
)

select * from final
