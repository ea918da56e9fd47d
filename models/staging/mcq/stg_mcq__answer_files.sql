{#- Every registered merged answer file, one row per file and data row, every cell as
    written (text), read by DuckDB through the strict reader (streaming; no row passes
    through Python). Language-specific columns get generic names; the prompts are not
    read (they come with the items). Incremental: a file is read again only when its
    version (content md5 and registry line) changed; the rows of a removed file go
    (macros/mcq_files.sql). -#}
{%- set rejects = 'concord_rejects_mcq_answer_files' -%}
{%- set directory = var('mcq_answers_dir') -%}
{%- set lines = mcq_registered_files(
    ref('mcq_answer_registry'), directory, 'mcq_answer_registry',
    ['file', 'model', 'prefix', 'run', 'presented_option_order']) -%}
{{ config(
    materialized=incremental_materialization(),
    incremental_strategy='delete+insert',
    unique_key='source_file',
    on_schema_change='fail',
    pre_hook="{{ strict_csv_reset_rejects('" ~ rejects ~ "') }}",
    post_hook=[
        "{{ strict_csv_assert_no_rejects('" ~ rejects ~ "') }}",
        "{{ mcq_assert_files_have_rows(this, ref('mcq_answer_registry')) }}",
    ],
) }}
{%- set options = var('mcq_options') -%}
{%- for line in lines -%}
    {%- if line['presented_option_order'] | list | sort != options -%}
        {{ exceptions.raise_compiler_error(
            'mcq_answer_registry: ' ~ line['file'] ~ ': presented_option_order '
            ~ line['presented_option_order'] ~ ' is not a permutation of ' ~ options | join('')) }}
    {%- endif -%}
    {%- if line['run'] not in ('base', 'shuffled') -%}
        {{ exceptions.raise_compiler_error(
            'mcq_answer_registry: ' ~ line['file'] ~ ': run ' ~ line['run']
            ~ ' is not base or shuffled') }}
    {%- endif -%}
{%- endfor %}

{#- every file's header and version first (a file unchanged since its last inspection is
    not read again: mcq_cached_inspections); then only the files to read now -#}
{%- set paths = [] -%}
{%- for line in lines -%}
    {%- do paths.append(directory ~ '/' ~ line['file']) -%}
{%- endfor -%}
{%- set cached = mcq_cached_inspections(paths) -%}
{%- set inspected = {} -%}
{%- set checked = {} -%}
{%- set versions = {} -%}
{%- for line in lines -%}
    {%- set path = directory ~ '/' ~ line['file'] -%}
    {%- set columns = {} -%}
    {%- for lang in var('mcq_languages') -%}
        {%- set up = lang | upper -%}
        {%- do columns.update({'domain_' ~ lang: 'Domain_' ~ up}) -%}
        {%- for option in options -%}
            {%- do columns.update({'option_' ~ option | lower ~ '_' ~ lang: option ~ '_' ~ up}) -%}
        {%- endfor -%}
        {%- do columns.update({'answer_' ~ lang: line['prefix'] ~ '_' ~ up}) -%}
    {%- endfor -%}
    {%- set found = strict_csv_header_and_md5(
        path, line['file'], columns.values() | list, cached=cached.get(path)) -%}
    {%- if path not in cached -%}
        {%- do inspected.update({path: found['inspected']}) -%}
    {%- endif -%}
    {%- do checked.update({line['file']: {'columns': columns, 'header': found['header']}}) -%}
    {%- do versions.update({line['file']: [
        found['content_md5'], line['model'], line['prefix'], line['run'],
        line['presented_option_order']] | join('|')}) -%}
{%- endfor -%}
{%- do mcq_store_inspections(inspected, paths) -%}
{%- set to_read = mcq_files_to_read(versions) -%}
{%- set reading = lines | selectattr('file', 'in', to_read) | list %}

with

{% for line in reading %}
{%- set columns = checked[line['file']]['columns'] %}
answer_file_{{ loop.index }} as (

    select
        {{ mcq_literal(line['file']) }} as source_file,
        source_row,
        source_row as item_id,
        {%- for name, column in columns.items() %}
        {{ adapter.quote(column) }} as {{ name }},
        {%- endfor %}
        {{ mcq_literal(line['model']) }} as model,
        {{ mcq_literal(line['prefix']) }} as prefix,
        {{ mcq_literal(line['run']) }} as run,
        {{ mcq_literal(line['presented_option_order']) }} as presented_option_order,
        {{ mcq_literal(versions[line['file']]) }} as file_version
    from {{ strict_csv_scan(directory ~ '/' ~ line['file'], checked[line['file']]['header'], rejects_table=rejects) }}

),

{% endfor %}

final as (

    {% for line in reading %}
    select * from answer_file_{{ loop.index }}
    {% if not loop.last %}union all{% endif %}
    {% else %}
    {#- nothing registered yet (or parsing): the same columns, no rows -#}
    select
        cast(null as {{ dbt.type_string() }}) as source_file,
        cast(null as bigint) as source_row,
        cast(null as bigint) as item_id,
        {%- for lang in var('mcq_languages') %}
        cast(null as {{ dbt.type_string() }}) as domain_{{ lang }},
        {%- for option in options %}
        cast(null as {{ dbt.type_string() }}) as option_{{ option | lower }}_{{ lang }},
        {%- endfor %}
        cast(null as {{ dbt.type_string() }}) as answer_{{ lang }},
        {%- endfor %}
        cast(null as {{ dbt.type_string() }}) as model,
        cast(null as {{ dbt.type_string() }}) as prefix,
        cast(null as {{ dbt.type_string() }}) as run,
        cast(null as {{ dbt.type_string() }}) as presented_option_order,
        cast(null as {{ dbt.type_string() }}) as file_version
    where false
    {% endfor %}

)

select * from final
