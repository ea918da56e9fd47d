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

{#- The values of a group as a sorted list (an array): a multiset in one canonical form, so
    groups with the same values compare and group equal. -#}
{% macro sorted_list_agg(expr) -%}
    {{ return(adapter.dispatch('sorted_list_agg', 'concord')(expr)) }}
{%- endmacro %}

{% macro default__sorted_list_agg(expr) -%}
    list_sort(list({{ expr }}))
{%- endmacro %}

{% macro spark__sorted_list_agg(expr) -%}
    array_sort(collect_list({{ expr }}))
{%- endmacro %}
