{#- Microseconds since the epoch of a timestamp (with time zone), as a whole number: the
    same value on every engine, where a timestamp's text is not (DuckDB writes its offset,
    Spark none). -#}
{% macro epoch_microseconds(timestamp) -%}
    {{ return(adapter.dispatch('epoch_microseconds', 'concord')(timestamp)) }}
{%- endmacro %}

{% macro default__epoch_microseconds(timestamp) -%}
    epoch_us({{ timestamp }})
{%- endmacro %}

{% macro spark__epoch_microseconds(timestamp) -%}
    unix_micros({{ timestamp }})
{%- endmacro %}
