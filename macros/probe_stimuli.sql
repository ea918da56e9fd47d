{#- The columns that identify a probe stimulus and say what it was, with their types: the SQL
    side of concord_common.probe_landing.STIMULUS_FIELDS. They come first in the landed
    scores and stimuli and are carried, in this order, to the per-stimulus indices.
    `followed_by`: the mapping of the table's other columns (name -> SQL type). -#}
{% macro probe_stimulus_columns(followed_by={}) -%}
    {%- set columns = {
        'run_id': dbt.type_string(),
        'stimulus_id': dbt.type_int(),
        'msg_id': dbt.type_int(),
        'group_name': dbt.type_string(),
        'sender_name': dbt.type_string(),
        'stimulus': dbt.type_string(),
    } -%}
    {%- do columns.update(followed_by) -%}
    {{ return(columns) }}
{%- endmacro %}

{#- The stimulus columns as a select or group-by list. -#}
{% macro probe_stimulus_column_list() -%}
    {%- for name in probe_stimulus_columns() %}
    {{ name }}{{ ',' if not loop.last }}
    {%- endfor %}
{%- endmacro %}
