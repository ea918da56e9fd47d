{#- A SQL string literal holding ``value`` exactly: every value that reaches SQL as text
    (a path, a group name, a test's message) goes through this, so a quote in it is a
    character, never the end of the string. -#}
{% macro sql_string_literal(value) -%}
    {{ return(adapter.dispatch('sql_string_literal', 'concord')(value)) }}
{%- endmacro %}

{#- DuckDB, Postgres: single quotes doubled. -#}
{% macro default__sql_string_literal(value) -%}
    '{{ value | string | replace("'", "''") }}'
{%- endmacro %}

{#- Spark reads 'I''m' as two adjacent literals ("Im"): escape with backslashes instead. -#}
{% macro spark__sql_string_literal(value) -%}
    '{{ value | string | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}
