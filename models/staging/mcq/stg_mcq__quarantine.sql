-- depends_on: {{ source('mcq_landing', 'quarantine') }}
{# The records each run set aside instead of answering (two records of one item and
    language, a language the study does not compare), with their reason
    (docs/landing.md). -#}
with landed as (
    {{ read_landing('mcq', 'quarantine', {
        'run_id': dbt.type_string(),
        'source_file': dbt.type_string(),
        'source_row': dbt.type_bigint(),
        'record_key': dbt.type_string(),
        'column_name': dbt.type_string(),
        'value': dbt.type_string(),
        'reason': dbt.type_string(),
        'content_hash': dbt.type_string(),
    }) }}
),

final as (
    select * from landed
)

select * from final
