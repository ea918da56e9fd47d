{#- A bounded quantity (a probability in [0, 1], a percentage in [0, 100], a tau in [-1, 1]).
    Nulls pass: undefined values carry their own reason column. -#}
{% test value_between(model, column_name, min_value, max_value, tolerance=1e-9) %}
select {{ column_name }}
from {{ model }}
where {{ column_name }} < {{ min_value }} - {{ tolerance }}
   or {{ column_name }} > {{ max_value }} + {{ tolerance }}
{% endtest %}
