{#- Each landed answer as the presented letter it stands for and the original option it
    points to, with the run's model and variant: the reader (concord_io.landing) read and
    normalised every answer and checked every file (unknown domain labels, misaligned wide
    rows and the rest are refused before anything lands). A sample log's record that cannot
    be an answer (more choices than options) is quarantined by int_mcq_answers_quarantined
    instead. The domain is given in English whatever the language; an item not in the item
    files has the domain '(not in the item files)'.
    Incremental: only the answer files of runs landed since the last build are read again
    (file_version: the run, the file's content hash and when the run landed); the rows of
    older versions and of runs no longer landed are deleted after. -#}
{{ config(
    materialized=incremental_materialization(),
    incremental_strategy='append',
    on_schema_change='fail',
    post_hook="{{ mcq_delete_stale_file_versions(this, mcq_answer_file_versions()) }}",
) }}

with answers as (

    select * from {{ ref('stg_mcq__answers') }}
    where {{ mcq_is_answer('invalid_reason') }}

),

runs as (

    select * from {{ ref('stg_mcq__runs') }}

),

versioned as (

    select
        answers.*,
        runs.model,
        runs.variant,
        runs.presented_option_order,
        {{ mcq_file_version('runs', 'answers') }} as file_version
    from answers
    inner join runs
        on answers.run_id = runs.run_id

),

new_versions as (

    select * from versioned
    {% if is_incremental() %}
    -- only the file versions not held yet; older versions go in the post-hook
    where not exists (
        select 1 from {{ this }} as held
        where held.source_file = versioned.source_file
            and held.file_version = versioned.file_version
    )
    {% endif %}

),

final as (

    select
        model,
        variant as run,
        cast(item_id as {{ dbt.type_bigint() }}) as item_id,
        language,
        coalesce(domain, '(not in the item files)') as domain,
        domain_label,
        raw_answer as answer_raw,
        -- the presented letter: the position of the original option in the presented order
        case
            when chosen_option is not null then substr(
                '{{ var("mcq_options") | join("") }}',
                {{ dbt.position('chosen_option', 'presented_option_order') }},
                1
            )
        end as answer,
        chosen_option as original_option,
        chosen_option is not null as is_valid,
        invalid_reason,
        presented_option_order,
        source_file,
        source_row,
        source_column,
        file_version
    from new_versions

)

select * from final
