{#- Answers that are not an option (they stay in int_mcq_answers_normalised as invalid),
    landed records that cannot be an answer (a sample of more than 26 choices), and
    the records each run set aside (stg_mcq__quarantine: every record of an item and
    language given more than once in a run, a language outside mcq_languages), and the
    answers in a language their task does not compare (int_mcq_task_languages_declared), in
    the standard quarantine shape; they are never counted as answers. -#}
with answers as (select * from {{ ref('int_mcq_answers_normalised') }}),

records as (

    select * from {{ ref('stg_mcq__answers') }}
    where not {{ mcq_is_answer('invalid_reason') }}

),

set_aside as (select * from {{ ref('stg_mcq__quarantine') }}),

declared as (select * from {{ ref('int_mcq_task_languages_declared') }}),

-- answers in a language their task does not compare (never counted: not normalised)
outside as (

    select staged.* from {{ ref('stg_mcq__answers') }} as staged
    where {{ mcq_is_answer('staged.invalid_reason') }}
        and not {{ mcq_in_task_languages('staged', 'declared') }}

),

task_languages as (

    select
        task,
        {{ string_agg_ordered('language', "', '", 'language') }} as languages,
        max(declared_in) as declared_in
    from declared
    group by task

),

final as (

    select
        source_file as source,
        cast(source_row as {{ dbt.type_bigint() }}) as source_row,
        run_id || '|' || task || '|' || item_id || '|' || language
            as record_key,
        source_column as column_name,
        answer_raw as value,
        'mcq answer ' || invalid_reason as reason
    from answers
    where not is_valid

    union all

    select
        source_file as source,
        source_row,
        source_file || '#' || cast(source_row as {{ dbt.type_string() }}) as record_key,
        source_column as column_name,
        raw_answer as value,
        'mcq answer record: ' || invalid_reason as reason
    from records

    union all

    select
        source_file as source,
        source_row,
        record_key,
        column_name,
        value,
        'mcq answer record: ' || reason as reason
    from set_aside

    union all

    select
        outside.source_file as source,
        cast(outside.source_row as {{ dbt.type_bigint() }}) as source_row,
        outside.run_id || '|' || outside.task || '|' || outside.item_id || '|'
            || outside.language as record_key,
        outside.source_column as column_name,
        outside.raw_answer as value,
        'mcq answer in a language its task does not compare (task ' || outside.task
            || ' compares ' || task_languages.languages || ', declared by '
            || task_languages.declared_in || '; to compare it, list the task''s languages in '
            || 'seeds/mcq/mcq_task_languages.csv, or concord add lmeval --languages)' as reason
    from outside
    inner join task_languages using (task)

)

select * from final
