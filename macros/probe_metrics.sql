{#- Mean, sample standard deviation (n - 1, pandas' default) and count of the probe's three
    indices; the per-name and the group-averaged summaries differ only in their input rows. -#}
{% macro probe_index_summary_columns() -%}
    count(*) as n_rows,
    {%- for index in ['index_reliable_like', 'index_unreliable_like', 'index_rel_minus_unrel'] %}
    avg({{ index }}) as {{ index }}_mean,
    stddev_samp({{ index }}) as {{ index }}_std
    {%- if not loop.last %},{% endif %}
    {%- endfor %}
{%- endmacro %}
