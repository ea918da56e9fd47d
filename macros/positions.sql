{#- A row's place within its `partition_by` group in `order_by` order, from 0: the index it
    has in the arrays a Python model builds (a rating matrix's rows and columns). -#}
{% macro position_from_zero(partition_by, order_by) -%}
    cast(
        row_number() over (partition by {{ partition_by }} order by {{ order_by }}) - 1
        as {{ dbt.type_bigint() }}
    )
{%- endmacro %}
