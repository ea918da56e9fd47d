{#- Answers that are not a letter: they stay in int_mcq_answers_normalised as invalid and
    are listed here in the standard quarantine shape; they are never counted as answers. -#}
with answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}

),

final as (

    select
        source_file as source,
        source_row::bigint as source_row,
        model || '|' || run || '|' || item_id || '|' || language as record_key,
        source_column as column_name,
        answer_raw as value,
        'mcq answer ' || invalid_reason as reason
    from answers
    where not is_valid

)

select * from final
