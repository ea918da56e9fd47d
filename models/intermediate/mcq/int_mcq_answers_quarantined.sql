{#- Answers that are not a letter (they stay in int_mcq_answers_normalised as invalid) and
    records of the long-format files and sample logs that cannot be an answer, in the
    standard quarantine shape; they are never counted as answers. -#}
with answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}

),

records as (

    select * from {{ ref('int_mcq_answers_unpivoted') }}
    where record_problem is not null

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

    union all

    -- records of the long-format files and sample logs that cannot be an answer
    select
        source_file as source,
        source_row::bigint as source_row,
        source_file || '#' || source_row as record_key,
        source_column as column_name,
        answer_raw as value,
        'mcq answer record: ' || record_problem as reason
    from records

)

select * from final
