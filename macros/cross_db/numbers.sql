{#- 100 · numerator / denominator as a double, null when the denominator is 0. Written as
    100.0 * n / d, Spark would read 100.0 as a decimal and round the share to 6 places;
    DuckDB returns a double either way. -#}
{% macro share_pct(numerator, denominator) -%}
    100 * cast({{ numerator }} as double) / nullif({{ denominator }}, 0)
{%- endmacro %}
