{#- A model's select list from its contract, written once in its yml: every declared column,
    in the yml's order, cast to its data_type, from `relation` (a CTE or alias). A mart whose
    last step only names and types its columns says `select {{ contract_columns('x') }}
    from x` instead of restating the contract. -#}
{% macro contract_columns(relation) -%}
    {%- for name, column in model.columns.items() %}
    cast({{ relation }}.{{ adapter.quote(name) if ' ' in name else name }} as {{ column.data_type }}) as {{ name }}{{ ',' if not loop.last }}
    {%- endfor %}
{%- endmacro %}
