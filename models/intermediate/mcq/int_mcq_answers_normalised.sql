{#- Each raw answer as the presented letter it stands for, the original option it points
    to, and, when it is not a letter, why (records with a record_problem are quarantined
    by int_mcq_answers_quarantined instead). The domain is given in English whatever the
    language. The post-hook stops the build when a row's three languages are not the same
    item (their domains differ; only rows of the wide files, column <PREFIX>_<LANG>, hold
    several languages) or a domain label is not in mcq_domain_translations.
    Incremental: only the answer files whose version changed are normalised again
    (macros/mcq_files.sql), and only their rows are checked (mcq_rows_just_read). -#}
{{ config(
    materialized=incremental_materialization(),
    incremental_strategy='delete+insert',
    unique_key='source_file',
    on_schema_change='fail',
    pre_hook="{{ mcq_remember_files_held() }}",
    post_hook=[
        "{{ mcq_delete_removed_files(this, ref('int_mcq_answers_unpivoted')) }}",
        "{{ assert_no_rows(
            'select source_file, source_row, source_column, domain_label as value
             from ' ~ mcq_rows_just_read() ~ ' as answers
             where domain is null and domain_label is not null
             order by source_file, source_row',
            'Unknown domain label (add it to seeds/mcq/mcq_domain_translations.csv)') }}",
        "{{ assert_no_rows(
            mcq_misaligned_wide_rows(
                ref('stg_mcq__answer_files'), ref('stg_mcq__domain_translations'),
                mcq_rows_just_read()),
            'Misaligned rows: the languages of one row are not the same item') }}",
        "{{ mcq_forget_files_held() }}",
    ]
) }}

-- depends_on: {{ ref('stg_mcq__answer_files') }} (the misalignment check reads its rows)
with answers as (

    select * from {{ ref('int_mcq_answers_unpivoted') }}
    where record_problem is null
    {% if is_incremental() %}
        -- only the files (or file versions) not yet normalised; delete+insert on
        -- source_file replaces a changed file's rows
        and (source_file, file_version) not in (
            select distinct source_file, file_version from {{ this }}
        )
    {% endif %}

),

domain_translations as (

    select * from {{ ref('stg_mcq__domain_translations') }}

),

keyed as (

    select
        answers.*,
        -- an item that is not in the item files (a benchmark's, from a sample log) has no domain
        coalesce(
            domain_translations.domain_en,
            case when answers.domain_label is null then '(not in the item files)' end
        ) as domain,
        {{ mcq_answer_letter_form('answers.answer_raw') }} as letter_form,
        case
            when answers.answer_raw in ('A', 'B', 'C', 'D') then lower(answers.answer_raw)
            else {{ mcq_text_key('answers.answer_raw') }}
        end as answer_key
    from answers
    left join domain_translations
        on answers.language = domain_translations.language
        and answers.domain_label = domain_translations.domain_label

),

normalised as (

    select
        *,
        {{ mcq_normalised_answer(
            'letter_form', 'answer_key', 'option_a', 'option_b', 'option_c', 'option_d'
        ) }} as answer
    from keyed

),

final as (

    select
        model,
        run,
        item_id,
        language,
        domain,
        domain_label,
        answer_raw,
        answer,
        {{ mcq_original_option('answer', 'presented_option_order') }} as original_option,
        answer is not null as is_valid,
        {{ mcq_invalid_reason('answer', 'letter_form', 'answer_key') }} as invalid_reason,
        presented_option_order,
        source_file,
        source_row,
        source_column,
        file_version
    from normalised

)

select * from final
