{#- Every long-format answer file and lm-evaluation-harness sample log registered in
    mcq_answer_sources, one row per record, read by DuckDB (macros/mcq_answer_records.sql):
    who answered, which item and language, the answer as written (for a sample log, the
    letter of the choice with the highest log-likelihood), and why a record cannot be an
    answer (record_problem; quarantined downstream). -#}
{%- set rejects = 'concord_rejects_mcq_answer_records' -%}
{%- set directory = var('mcq_answer_sources_dir') -%}
{%- set lines = mcq_registered_sources(
    ref('mcq_answer_sources'), directory, 'mcq_answer_sources') -%}
{{ config(
    materialized='table',
    pre_hook="{{ strict_csv_reset_rejects('" ~ rejects ~ "') }}",
    post_hook="{{ strict_csv_assert_no_rejects('" ~ rejects ~ "') }}",
) }}

with

{% for line in lines %}
{%- set outer = loop.index -%}
{%- for relative in line['paths'] %}
answer_records_{{ outer }}_{{ loop.index }} as (

    {{ mcq_answer_records(directory ~ '/' ~ relative, relative, line, rejects) }}

),
{% endfor %}
{% endfor %}

final as (

    {% for line in lines %}
    {%- set outer = loop.index -%}
    {%- for relative in line['paths'] %}
    select * from answer_records_{{ outer }}_{{ loop.index }}
    union all
    {% endfor %}
    {%- endfor %}
    select
        cast(null as varchar) as source_file,
        cast(null as bigint) as source_row,
        cast(null as varchar) as model,
        cast(null as varchar) as run,
        cast(null as varchar) as item_key,
        cast(null as varchar) as language,
        cast(null as varchar) as answer_raw,
        cast(null as varchar) as source_column,
        cast(null as varchar) as presented_option_order,
        cast(null as varchar) as record_problem
    where false

)

select * from final
