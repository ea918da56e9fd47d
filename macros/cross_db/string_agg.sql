{#- The values of `expr` joined by `delimiter` (a SQL literal) in the order of `order_by`.
    dbt.listagg drops the order on Spark; DuckDB and Spark spell the ordered form
    differently. -#}
{% macro string_agg_ordered(expr, delimiter, order_by) -%}
    {{ return(adapter.dispatch('string_agg_ordered', 'concord')(expr, delimiter, order_by)) }}
{%- endmacro %}

{% macro default__string_agg_ordered(expr, delimiter, order_by) -%}
    string_agg({{ expr }}, {{ delimiter }} order by {{ order_by }})
{%- endmacro %}

{% macro spark__string_agg_ordered(expr, delimiter, order_by) -%}
    string_agg({{ expr }}, {{ delimiter }}) within group (order by {{ order_by }})
{%- endmacro %}
