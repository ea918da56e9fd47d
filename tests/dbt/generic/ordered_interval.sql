{#- A confidence interval brackets its estimate: low <= estimate <= high. -#}
{% test ordered_interval(model, low, estimate, high, tolerance=1e-9) %}
select {{ [low, estimate, high] | unique | join(', ') }}
from {{ model }}
where {{ low }} > {{ estimate }} + {{ tolerance }}
   or {{ estimate }} > {{ high }} + {{ tolerance }}
{% endtest %}
