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

{#- An item's valid answers as one string (an aggregate, in no order): each answer's
    `language` and `option` joined by the unit separator (chr(31)), the answers by the record
    separator (chr(30)); neither is in a language tag or an option key. The departing
    languages are read from it after the majority is known (answers_departing), so the
    answers pass once: one string per item costs less than a list per item, or reading the
    answers again (int_mcq_items_classified). -#}
{% macro answers_as_text(language, option) -%}
    string_agg(
        case when {{ option }} is not null then {{ language }} || chr(31) || {{ option }} end,
        chr(30)
    )
{%- endmacro %}

{#- The languages of `answers` (answers_as_text) whose option is not `leading`, sorted and
    joined by ','. A language tag sorts before any tag it prefixes (chr(31) before every
    printable character), so the order is the languages' own. -#}
{% macro answers_departing(answers, leading) -%}
    {{ return(adapter.dispatch('answers_departing', 'concord')(answers, leading)) }}
{%- endmacro %}

{% macro default__answers_departing(answers, leading) -%}
    array_to_string(list_transform(
        list_sort(list_filter(
            string_split({{ answers }}, chr(30)),
            lambda answer: not ends_with(answer, chr(31) || {{ leading }})
        )),
        lambda answer: split_part(answer, chr(31), 1)
    ), ',')
{%- endmacro %}

{% macro spark__answers_departing(answers, leading) -%}
    array_join(transform(
        array_sort(filter(
            split({{ answers }}, chr(30)),
            answer -> not endswith(answer, concat(chr(31), {{ leading }}))
        )),
        answer -> split_part(answer, chr(31), 1)
    ), ',')
{%- endmacro %}
