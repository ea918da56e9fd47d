{#- The parallel cloze items, one row per item file and data row (row position = item_id),
    read by DuckDB through the strict reader. Option texts are read by header name, so
    the order-control files (columns stored D, C, B, A) put each text under its own
    original letter. -#}
{%- set rejects = 'concord_rejects_mcq_item_files' -%}
{%- set directory = var('mcq_items_dir') -%}
{%- set lines = mcq_registered_files(
    ref('mcq_item_files'), directory, 'mcq_item_files', ['file', 'language', 'variant']) -%}
{{ config(
    materialized='table',
    pre_hook="{{ strict_csv_reset_rejects('" ~ rejects ~ "') }}",
    post_hook=[
        "{{ strict_csv_assert_no_rejects('" ~ rejects ~ "') }}",
        "{{ mcq_assert_files_have_rows(this, ref('mcq_item_files')) }}",
    ],
) }}
{%- set columns = {'domain': 'Domain', 'prompt': 'Prompt'} -%}
{%- for option in var('mcq_options') -%}
    {%- do columns.update({'option_' ~ option | lower: option}) -%}
{%- endfor %}

with

{% for line in lines %}
{%- set path = directory ~ '/' ~ line['file'] -%}
{%- set header = strict_csv_header(path, line["file"], columns.values() | list) %}
item_file_{{ loop.index }} as (

    select
        {{ mcq_literal(line['file']) }} as source_file,
        source_row,
        source_row as item_id,
        {{ mcq_literal(line['language']) }} as language,
        {{ mcq_literal(line['variant']) }} as variant,
        {%- for name, column in columns.items() %}
        {{ adapter.quote(column) }} as {{ name }}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ strict_csv_scan(path, header, rejects_table=rejects) }}

),

{% endfor %}

final as (

    {% for line in lines %}
    select * from item_file_{{ loop.index }}
    {% if not loop.last %}union all{% endif %}
    {% else %}
    select
        cast(null as {{ dbt.type_string() }}) as source_file,
        cast(null as bigint) as source_row,
        cast(null as bigint) as item_id,
        cast(null as {{ dbt.type_string() }}) as language,
        cast(null as {{ dbt.type_string() }}) as variant,
        {%- for name in columns %}
        cast(null as {{ dbt.type_string() }}) as {{ name }}{{ ',' if not loop.last }}
        {%- endfor %}
    where false
    {% endfor %}

)

select * from final
