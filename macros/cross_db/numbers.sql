{#- 100 · numerator / denominator as a double, null when the denominator is 0. Written as
    100.0 * n / d, Spark would read 100.0 as a decimal and round the share to 6 places;
    DuckDB returns a double either way. -#}
{% macro share_pct(numerator, denominator) -%}
    100 * cast({{ numerator }} as double) / nullif({{ denominator }}, 0)
{%- endmacro %}

{#- The standard error, in points, of that share of 0/1 outcomes as lm-evaluation-harness
    reports it (mean_stderr: the sample standard deviation / √n), which for n outcomes of
    which k are 1 is 100 · √(k (n − k) / (n² (n − 1))); null for n < 2, as the harness's
    N/A. -#}
{% macro share_std_error_pp(numerator, denominator) -%}
    case
        when {{ denominator }} > 1 then 100 * sqrt(
            cast({{ numerator }} as double) * ({{ denominator }} - {{ numerator }})
            / (cast({{ denominator }} as double) * {{ denominator }} * ({{ denominator }} - 1))
        )
    end
{%- endmacro %}
