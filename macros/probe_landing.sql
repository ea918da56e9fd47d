{#- Reading one table of the probe's landing folder: <landing>/probe/run_id=*/<table>.parquet.

    Each probe run lands as its own immutable folder (probe/landing.py); hidden .tmp-/.old-
    folders of unfinished or replaced runs do not match run_id=* and are never read. Before
    the first probe run there is no file at all: read_parquet would fail on an empty glob, so
    the macro checks the glob first and returns an empty relation with the same columns and
    types, which keeps `dbt build` working (the probe marts are then empty).

    columns: a mapping column name -> SQL type; every column is cast to its type, so the
    landing schema is checked at the warehouse boundary. -#}

{% macro probe_landing_pattern(table_name) -%}
    {{ var('probe_landing_dir') }}/probe/run_id=*/{{ table_name }}.parquet
{%- endmacro %}

{% macro read_probe_landing(table_name, columns) -%}
    {{ return(adapter.dispatch('read_probe_landing', 'concord')(table_name, columns)) }}
{%- endmacro %}

{% macro default__read_probe_landing(table_name, columns) -%}
    {{ exceptions.raise_compiler_error(
        'read_probe_landing has no implementation for adapter ' ~ adapter.type()
        ~ ': add one that reads ' ~ probe_landing_pattern(table_name)
    ) }}
{%- endmacro %}

{% macro duckdb__read_probe_landing(table_name, columns) -%}
    {%- set pattern = probe_landing_pattern(table_name) -%}
    {%- set n_files = 0 -%}
    {%- if execute -%}
        {%- set found = run_query("select count(*) from glob('" ~ pattern ~ "')") -%}
        {%- set n_files = found.columns[0].values()[0] -%}
    {%- endif -%}
    {%- if n_files > 0 %}
    select
        {%- for name, type in columns.items() %}
        cast({{ name }} as {{ type }}) as {{ name }},
        {%- endfor %}
    from read_parquet('{{ pattern }}', union_by_name = true, hive_partitioning = false)
    {%- else %}
    select
        {%- for name, type in columns.items() %}
        cast(null as {{ type }}) as {{ name }},
        {%- endfor %}
    where 1 = 0
    {%- endif %}
{%- endmacro %}
