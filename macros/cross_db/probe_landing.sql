{#- Spark's reader of the probe landing (the DuckDB one is in macros/probe_landing.sql):
    the same glob of immutable run folders, read by Spark's Parquet source, with the
    declared column types translated to Spark's names (lists become arrays, DuckDB's
    timestamp with time zone is Spark's timestamp, an instant in UTC). Spark has no glob()
    to ask first: before the first probe run the read fails with Spark's PATH_NOT_FOUND,
    and dbt skips only the probe models. -#}
{% macro spark__read_probe_landing(table_name, columns) -%}
    select
        {%- for name, type in columns.items() %}
        cast({{ name }} as {{ spark_type_of(type) }}) as {{ name }},
        {%- endfor %}
        -- the file a row came from, as DuckDB's filename names it (no file: scheme)
        regexp_replace(input_file_name(), '^file:(//)?', '') as landing_file
    from parquet.`{{ probe_landing_pattern(table_name) }}`
{%- endmacro %}

{#- A column type written for DuckDB, in Spark's words. -#}
{% macro spark_type_of(type) -%}
    {%- set type = type | trim | lower -%}
    {%- if type.endswith('[]') -%}
        array<{{ spark_type_of(type[:-2]) }}>
    {%- elif type in ('varchar', 'text') -%}
        string
    {%- elif type == 'timestamp with time zone' -%}
        timestamp
    {%- else -%}
        {{ type }}
    {%- endif -%}
{%- endmacro %}
