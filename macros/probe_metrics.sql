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

{#- Monte Carlo standard error of a sign-flip p-value: sqrt(p (1 - p) / S) for S sampled
    relabellings (binomial), 0 when all 2^n were enumerated (the p-value is then exact). -#}
{% macro probe_p_value_mc_error(p_value, n_permutations, exact) -%}
    case
        when {{ exact }} then 0.0
        else sqrt({{ p_value }} * (1 - {{ p_value }}) / {{ n_permutations }})
    end
{%- endmacro %}

{#- What a paired resampling (int_probe_deltas_resampled, int_probe_model_differences_resampled)
    reports, in the marts' order: the bootstrap interval, then the sign-flip p-value with its
    Monte Carlo error. `resampled` is the relation (a CTE or alias) that holds them. -#}
{% macro probe_resampling_columns(resampled) -%}
    {{ resampled }}.ci_low,
    {{ resampled }}.ci_high,
    {{ resampled }}.confidence,
    {{ resampled }}.n_resamples,
    {{ resampled }}.p_value,
    {{ probe_p_value_mc_error(
        resampled ~ ".p_value", resampled ~ ".n_permutations", resampled ~ ".permutation_exact"
    ) }} as p_value_mc_error,
    {{ resampled }}.n_permutations,
    {{ resampled }}.permutation_exact
{%- endmacro %}
