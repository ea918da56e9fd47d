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

{#- Every key an option can have, in key order: the declared options (var mcq_options), then
    the letters A to Z not among them (the keys the reader gives a harness's choices beyond
    the declared ones: concord_io.landing.study.Study.option_keys). -#}
{% macro mcq_option_sequence() -%}
    {%- set declared = var('mcq_options') | map('string') | list -%}
    {%- set letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ' | list | reject('in', declared) | list -%}
    {{ return(declared + letters) }}
{%- endmacro %}

{#- The study's option keys as literals, for a model that gives each option a column: the
    declared options (sorted when `sorted`), then as many more of mcq_option_sequence as the
    most choices a landed answer was presented with needs (a sample log's n_choices). Read from the landing when the model
    compiles (a model that calls it reads the answers, which change whenever the landed
    choices do); while dbt parses, the declared options. -#}
{% macro mcq_option_keys(sorted=false) -%}
    {%- set declared = var('mcq_options') | map('string') | list -%}
    {%- set keys = (declared | sort) if sorted else declared -%}
    {%- if execute -%}
        {%- set answers = read_landing('mcq', 'answers',
            {'n_choices': dbt.type_int(), 'invalid_reason': dbt.type_string()}) -%}
        {%- set n_choices = run_query(
            'select coalesce(max(n_choices), 0) from (' ~ answers ~ ') as answers where '
            ~ mcq_is_answer('invalid_reason')
        ).columns[0].values()[0] -%}
        {%- set keys = keys + mcq_option_sequence()[declared | length:n_choices] -%}
    {%- endif -%}
    {{ return(keys) }}
{%- endmacro %}
