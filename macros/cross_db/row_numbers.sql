{#- The row's number in its table's load order (1 = first row of the seed file), for the
    quarantine's source_row. DuckDB keeps a seed's file order (the project sets
    preserve_insertion_order), so a window without an order is the file order there.
    Spark needs an order: a seed loads in one insert (dbt's batch holds 10 000 rows), whose
    rows Spark writes in order across part files numbered in that order, so file name then
    position within the file is the load order. -#}
{% macro load_order_row_number() -%}
    {{ return(adapter.dispatch('load_order_row_number', 'concord')()) }}
{%- endmacro %}

{% macro default__load_order_row_number() -%}
    row_number() over ()
{%- endmacro %}

{% macro spark__load_order_row_number() -%}
    row_number() over (order by input_file_name(), monotonically_increasing_id())
{%- endmacro %}
