{#- Every long-format answer file and lm-evaluation-harness sample log registered in
    mcq_answer_sources, one row per record, read by DuckDB (macros/mcq_answer_records.sql):
    who answered, which item and language, the answer as written (for a sample log, the
    letter of the choice with the highest log-likelihood), and why a record cannot be an
    answer (record_problem; quarantined downstream). -#}
{%- set rejects = 'concord_rejects_mcq_answer_records' -%}
{%- set directory = var('mcq_answer_sources_dir') -%}
{%- set lines = mcq_registered_sources(
    ref('mcq_answer_sources'), directory, 'mcq_answer_sources') -%}
{{ config(
    materialized=incremental_materialization(),
    incremental_strategy='delete+insert',
    unique_key='source_file',
    on_schema_change='fail',
    pre_hook="{{ strict_csv_reset_rejects('" ~ rejects ~ "') }}",
    post_hook="{{ strict_csv_assert_no_rejects('" ~ rejects ~ "') }}",
) }}
{#- a file's version: its content md5 (not read again while the file is unchanged:
    mcq_cached_inspections) and its registry line; only new or changed files are read on an
    incremental run, and the rows of removed files go (macros/mcq_files.sql) -#}
{%- set paths = [] -%}
{%- for line in lines -%}
    {%- for relative in line['paths'] -%}
        {%- do paths.append(directory ~ '/' ~ relative) -%}
    {%- endfor -%}
{%- endfor -%}
{%- set cached = mcq_cached_inspections(paths) -%}
{%- set inspected = {} -%}
{%- set versions = {} -%}
{%- set line_of = {} -%}
{%- for line in lines -%}
    {%- for relative in line['paths'] -%}
        {%- set path = directory ~ '/' ~ relative -%}
        {%- if path not in cached -%}
            {%- do inspected.update({path: mcq_file_md5(path)}) -%}
        {%- endif -%}
        {%- set md5 = (cached.get(path) or inspected[path])['content_md5'] -%}
        {%- do versions.update({relative: [md5, line['format'], line['model'], line['run'],
            line['language'], line['presented_option_order'], line['item_key']] | join('|')}) -%}
        {%- do line_of.update({relative: line}) -%}
    {%- endfor -%}
{%- endfor -%}
{%- do mcq_store_inspections(inspected, paths) -%}
{%- set to_read = mcq_files_to_read(versions) %}

with

{% for relative in to_read %}
answer_records_{{ loop.index }} as (

    select
        *,
        {{ mcq_literal(versions[relative]) }} as file_version
    from (
        {{ mcq_answer_records(directory ~ '/' ~ relative, relative, line_of[relative], rejects) }}
    )

),
{% endfor %}

final as (

    {% for relative in to_read %}
    select * from answer_records_{{ loop.index }}
    union all
    {% endfor %}
    select
        cast(null as {{ dbt.type_string() }}) as source_file,
        cast(null as bigint) as source_row,
        cast(null as {{ dbt.type_string() }}) as model,
        cast(null as {{ dbt.type_string() }}) as run,
        cast(null as {{ dbt.type_string() }}) as item_key,
        cast(null as {{ dbt.type_string() }}) as language,
        cast(null as {{ dbt.type_string() }}) as answer_raw,
        cast(null as {{ dbt.type_string() }}) as source_column,
        cast(null as {{ dbt.type_string() }}) as presented_option_order,
        cast(null as {{ dbt.type_string() }}) as record_problem,
        cast(null as {{ dbt.type_string() }}) as file_version
    where false

)

select * from final
