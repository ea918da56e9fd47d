{#- Rank of a mean tau-b within its consensus method, 1 first, ties sharing a rank. The means
    are rounded to 9 decimals first, so that float noise never splits equal means (the
    rater summary ranks them descending, the scenario controversy ascending). -#}
{% macro ranking_mean_tau_rank(direction) -%}
    rank() over (partition by method order by round(mean_tau_b, 9) {{ direction }})
{%- endmacro %}
