{#- The columns that identify a probe stimulus and say what it was, as a select or group-by
    list: the grain of the per-stimulus models. The landed scores and stimuli carry them
    first, as their one declaration says (models/staging/probe/_probe__sources.yml). Named
    here, not read from the declaration: a unit test compiles its model without the graph. -#}
{% macro probe_stimulus_column_list() -%}
    {%- for name in ['run_id', 'stimulus_id', 'msg_id', 'group_name', 'sender_name', 'stimulus'] %}
    {{ name }}{{ ',' if not loop.last }}
    {%- endfor %}
{%- endmacro %}
