{#- Sets of items as bits: an item numbered n (from 0) is bit n % 63 of the 63-bit word of
    its chunk n / 63 (63, not 64: the sign bit stays clear, so a signed bigint holds the word
    on every engine). The items two sets share are then the popcount of the two words ANDed:
    a language pair's K x K table costs one row per chunk and pair of options, not one per
    item and pair of languages (156 M rows at 40 languages, 10 000 items and 20 runs). -#}
{% macro item_chunk(item_no) -%}
    cast(floor({{ item_no }} / 63) as {{ dbt.type_bigint() }})
{%- endmacro %}

{% macro item_bit(item_no) -%}
    {{ return(adapter.dispatch('item_bit', 'concord')(item_no)) }}
{%- endmacro %}

{% macro default__item_bit(item_no) -%}
    (cast(1 as bigint) << cast({{ item_no }} % 63 as integer))
{%- endmacro %}

{% macro spark__item_bit(item_no) -%}
    shiftleft(cast(1 as bigint), cast({{ item_no }} % 63 as int))
{%- endmacro %}
