{#- The columns that identify a probe stimulus and say what it was, as a select or group-by
    list: the columns of the landed stimuli marked `stimulus` in their one declaration
    (models/staging/probe/_probe__sources.yml), in its order. The scores and stimuli carry
    them first; the per-stimulus indices are grouped by them. -#}
{% macro probe_stimulus_column_list() -%}
    {%- set node = (graph.get('sources') or {}).get(
        'source.' ~ project_name ~ '.probe_landing.stimuli') -%}
    {%- set names = [] -%}
    {%- for name, column in (node.columns if node else {}).items() -%}
        {%- if (column.config.meta or {}).get('stimulus') -%}{%- do names.append(name) -%}{%- endif -%}
    {%- endfor -%}
    {%- if execute and not names -%}
        {{ exceptions.raise_compiler_error('source probe_landing.stimuli marks no stimulus column') }}
    {%- endif -%}
    {%- for name in names %}
    {{ name }}{{ ',' if not loop.last }}
    {%- endfor %}
{%- endmacro %}
