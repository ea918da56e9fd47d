{#- Spark's reader of the landing (the DuckDB one is in macros/landing.sql): the same glob of
    immutable folders, read by Spark's Parquet source, with the declared column types
    translated to Spark's names (lists become arrays, DuckDB's timestamp with time zone is
    Spark's timestamp, an instant in UTC). Spark has no glob() to ask first: before
    anything is landed the read fails with Spark's PATH_NOT_FOUND, and dbt skips only the
    models of that area. Nothing lands on Spark: the landing is written beforehand (concord
    land, or a DuckDB build, whose plugin lands first; docs/spark.md). -#}
{% macro spark__read_landing(area, table_name, columns) -%}
    select
        {%- for name, type in columns.items() %}
        cast({{ name }} as {{ spark_type_of(type) }}) as {{ name }},
        {%- endfor %}
        -- the file a row came from, as DuckDB's filename names it (no file: scheme)
        regexp_replace(input_file_name(), '^file:(//)?', '') as landing_file
    from parquet.`{{ landing_pattern(area, table_name) }}`
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
