-- depends_on: {{ source('mcq_landing', 'answers') }}
{# One row per landed answer: run, task, item and language, the option it points to (or
    why none), the item's gold where the record carries one, and where it was read
    (docs/landing.md). -#}
with landed as (
    {{ read_landing('mcq', 'answers', with_landing_provenance({
        'run_id': dbt.type_string(),
        'task': dbt.type_string(),
        'item_id': dbt.type_string(),
        'language': dbt.type_string(),
        'chosen_option': dbt.type_string(),
        'raw_answer': dbt.type_string(),
        'invalid_reason': dbt.type_string(),
        'gold_option': dbt.type_string(),
        'domain_label': dbt.type_string(),
        'domain': dbt.type_string(),
        'source_column': dbt.type_string(),
    })) }}
),

final as (
    select * from landed
)

select * from final
