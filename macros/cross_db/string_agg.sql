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

{#- One row per element of `expr`, a string of values joined by `delimiter` (a SQL literal;
    string_agg_ordered's inverse), in a select list: DuckDB unnests, Spark explodes. -#}
{% macro split_to_rows(expr, delimiter) -%}
    {{ return(adapter.dispatch('split_to_rows', 'concord')(expr, delimiter)) }}
{%- endmacro %}

{% macro default__split_to_rows(expr, delimiter) -%}
    unnest(string_split({{ expr }}, {{ delimiter }}))
{%- endmacro %}

{% macro spark__split_to_rows(expr, delimiter) -%}
    {#- split takes a regular expression: the delimiter is quoted as a literal -#}
    explode(split({{ expr }}, concat('\\Q', {{ delimiter }}, '\\E')))
{%- endmacro %}

{#- A list of each of `values` (strings, in their order) repeated as many times as the
    column `count_prefix` + its 1-based index says: (['A', 'B'], 'n_') with n_1 = 2 and
    n_2 = 1 is ['A', 'A', 'B']. -#}
{% macro repeated_list(values, count_prefix) -%}
    {{ return(adapter.dispatch('repeated_list', 'concord')(values, count_prefix)) }}
{%- endmacro %}

{% macro default__repeated_list(values, count_prefix) -%}
    list_concat(
        {%- for value in values %}
        repeat([{{ dbt.string_literal(value | string) }}], cast({{ count_prefix }}{{ loop.index }} as integer))
        {{- ',' if not loop.last }}
        {%- endfor %}
    )
{%- endmacro %}

{% macro spark__repeated_list(values, count_prefix) -%}
    concat(
        {%- for value in values %}
        array_repeat({{ dbt.string_literal(value | string) }}, cast({{ count_prefix }}{{ loop.index }} as int))
        {{- ',' if not loop.last }}
        {%- endfor %}
    )
{%- endmacro %}
