{{ config(materialized="view") }}
{#- One row per answer file, item and language: the wide merged files made long. -#}
with answer_files as (

    select * from {{ ref('stg_mcq__answer_files') }}

),

final as (

    {% for lang in var('mcq_languages') %}
    select
        source_file,
        source_row,
        prefix || '_' || upper('{{ lang }}') as source_column,
        model,
        run,
        presented_option_order,
        item_id,
        '{{ lang }}' as language,
        domain_{{ lang }} as domain_label,
        option_a_{{ lang }} as option_a,
        option_b_{{ lang }} as option_b,
        option_c_{{ lang }} as option_c,
        option_d_{{ lang }} as option_d,
        answer_{{ lang }} as answer_raw
    from answer_files
    {% if not loop.last %}union all{% endif %}
    {% endfor %}

)

select * from final
