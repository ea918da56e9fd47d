-- depends_on: {{ source('mcq_landing', 'items') }}
{# The items of each task, one row per item, language and option (docs/landing.md): an
    order-control item file's options land under their own keys, once. -#}
with landed as (
    {{ read_landing('items', 'items', with_landing_provenance({
        'task': dbt.type_string(),
        'item_id': dbt.type_string(),
        'language': dbt.type_string(),
        'option_key': dbt.type_string(),
        'question': dbt.type_string(),
        'option_text': dbt.type_string(),
        'gold': dbt.type_string(),
        'domain_label': dbt.type_string(),
        'domain': dbt.type_string(),
    })) }}
),

final as (
    select * from landed
)

select * from final
