{#- The Spark forms of what DuckDB does its own way: the incremental models and on-run-end's
    table replacement. (The landing's reader is macros/cross_db/landing.sql.) -#}


{#- The incremental models delete rows: the normalised answers by file version (their
    post-hook, macros/mcq_answers.sql), the models downstream by group
    (macros/mcq_incremental_groups.sql). dbt-spark's Parquet tables have no delete: on Spark
    they are tables rebuilt from every landed run and group (mcq_in_groups_to_compute then
    keeps every group). -#}
{% macro incremental_materialization() %}
    {{ return(adapter.dispatch('incremental_materialization', 'concord')()) }}
{% endmacro %}

{% macro default__incremental_materialization() %}
    {{ return('incremental') }}
{% endmacro %}

{% macro spark__incremental_materialization() %}
    {{ return('table') }}
{% endmacro %}

{#- on-run-end's marts.dq_test_failures: Spark's Parquet tables have no `create or
    replace` (a v2-catalogue feature) and take the comment in the create; its string
    literals escape a quote with a backslash ('' is two adjacent literals there); a Parquet
    table keeps no key. -#}
{% macro spark__replace_table_as(name, select_sql, comment, key=[]) %}
    {%- do run_query('drop table if exists ' ~ name) -%}
    {%- do run_query('create table ' ~ name ~ ' using parquet comment '
        ~ sql_string_literal(comment) ~ ' as ' ~ select_sql) -%}
{% endmacro %}
