{#- Probabilities over a set (candidates of a stimulus, options of a language) sum to 1. -#}
{% test sums_to_one(model, column_name, group_by, tolerance=1e-6) %}
select {{ group_by | join(', ') }}, sum({{ column_name }}) as total
from {{ model }}
group by {{ group_by | join(', ') }}
having abs(sum({{ column_name }}) - 1) > {{ tolerance }}
{% endtest %}
