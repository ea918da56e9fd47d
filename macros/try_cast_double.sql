{#- Cast text to a double, null when it is not a number (instead of failing the query).
    dbt.safe_cast is a plain cast on DuckDB, which raises on 'x'; DuckDB's try_cast does
    not. Other adapters keep dbt.safe_cast (a null-on-failure cast on Spark, BigQuery,
    Snowflake). -#}
{% macro try_cast_double(expression) -%}
    {{ return(adapter.dispatch('try_cast_double')(expression)) }}
{%- endmacro %}

{% macro default__try_cast_double(expression) -%}
    {{ dbt.safe_cast(expression, api.Column.translate_type('double')) }}
{%- endmacro %}

{% macro duckdb__try_cast_double(expression) -%}
    try_cast({{ expression }} as double)
{%- endmacro %}
