{#- The columns of a staged runs table with `model` canonical (seed model_aliases) and the
    name as the input spelt it beside (`model_as_landed`); the CTE `relation` must be
    left-joined to model_aliases as `aliases` on `{{ relation }}.model = aliases.spelling`
    (model_aliases_join). `columns`: the landed columns, in order (read_landing's), which
    adds landing_file after them. -#}
{% macro canonical_model_columns(relation, columns) -%}
    {%- for name in columns %}
        {%- if name == 'model' %}
        coalesce(aliases.model, {{ relation }}.model) as model,
        {{ relation }}.model as model_as_landed
        {%- else %}
        {{ relation }}.{{ name }}
        {%- endif %},
    {%- endfor %}
        {{ relation }}.landing_file
{%- endmacro %}

{% macro model_aliases_join(relation) -%}
    left join {{ ref('model_aliases') }} as aliases
        on {{ relation }}.model = aliases.spelling
{%- endmacro %}
