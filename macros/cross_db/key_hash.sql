{#- A 64-bit hash of several columns, to find candidate duplicate keys cheaply (an
    aggregate over 8-byte values instead of the key's text); candidates are always checked
    on the columns themselves, so a collision costs time, never a wrong answer. -#}
{% macro key_hash(columns) %}
    {{- return(adapter.dispatch('key_hash', 'concord')(columns)) -}}
{% endmacro %}

{% macro default__key_hash(columns) -%}
    hash({{ columns | join(', ') }})
{%- endmacro %}

{% macro spark__key_hash(columns) -%}
    xxhash64({{ columns | join(', ') }})
{%- endmacro %}
