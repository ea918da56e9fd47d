{#- A staged runs table's select from the CTE `relation`: `model` canonical (the landed
    seed file model_aliases, whose rules stg_models__aliases tests) and the name as the input spelt it beside (`model_as_landed`), the other
    columns as landed. `columns`: the landed columns, in order (read_landing's), which adds
    landing_file after them. -#}
{% macro canonical_model_select(relation, columns) -%}
    select
    {%- for name in columns %}
        {%- if name == 'model' %}
        coalesce(aliases.model, {{ relation }}.model) as model,
        {{ relation }}.model as model_as_landed
        {%- else %}
        {{ relation }}.{{ name }}
        {%- endif %},
    {%- endfor %}
        {{ relation }}.landing_file
    from {{ relation }}
    left join ({{ read_landed_seed('models_seeds', 'model_aliases') }}) as aliases
        on {{ relation }}.model = aliases.spelling
{%- endmacro %}
