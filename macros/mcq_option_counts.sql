{#- The parts of an item's option counts as text (dbt.concat's list): the columns
    `answered.n_option_<k>` for each of `options` joined by ','. An item's pattern, whatever
    the number of options, in one column of a fixed type. -#}
{% macro option_counts_parts(options) -%}
    {%- set parts = [] -%}
    {%- for option in options -%}
        {%- do parts.append('cast(answered.n_option_' ~ loop.index ~ ' as ' ~ dbt.type_string() ~ ')') -%}
        {%- if not loop.last %}{% do parts.append("','") %}{% endif -%}
    {%- endfor -%}
    {{ return(parts) }}
{%- endmacro %}
