{#- Each landed answer as the item's own option key it points to and the position at which
    that option was shown, with the run's model, revision and variant: the reader
    (concord_io.landing) read and normalised every answer and checked every file (unknown
    domain labels, misaligned wide rows and the rest are refused before anything lands). A sample log's record that cannot
    be an answer (more than 26 choices) is quarantined by int_mcq_answers_quarantined
    instead. The domain is given in English whatever the language; an item not in the item
    files has the domain '(not in the item files)'. An answer in a language its task does
    not compare (int_mcq_task_languages_declared) is left to int_mcq_answers_quarantined.
    Incremental: only the answer files of runs landed since the last build are read again
    (file_version: the run, the file's content hash and when the run landed); the rows of
    older versions and of runs no longer landed are deleted after. On Spark, by run: a run
    any of whose files changed is read again whole into its partition
    (mcq_incremental_write). -#}
{{ config(
    post_hook="{{ mcq_delete_stale_file_versions(this, mcq_answer_file_versions()) }}",
    **mcq_incremental_write('run_id')
) }}

with files as (

    -- each file of a run with its version: the few files, not every answer
    {{ mcq_answer_file_versions() }}

),

new_files as (

    select * from files
    {% if is_incremental() %}
    -- only the file versions not held yet; older versions go in the post-hook
    where {{ mcq_file_versions_to_read('files', this) }}
    {% endif %}

),

runs as (select * from {{ ref('stg_mcq__runs') }}),

new_versions as (

    -- the answers of the new files alone (none read when nothing is new)
    select
        staged.*,
        runs.model,
        runs.model_revision,
        runs.variant,
        runs.presented_option_order,
        new_files.file_version
    from {{ ref('stg_mcq__answers') }} as staged
    inner join new_files
        on staged.run_id = new_files.run_id
        and staged.source_file = new_files.source_file
        and staged.content_hash = new_files.content_hash
    inner join runs
        on staged.run_id = runs.run_id
    where {{ mcq_is_answer('staged.invalid_reason') }}
        -- an answer in a language its task does not compare is quarantined instead
        and {{ mcq_in_task_languages('staged', ref('int_mcq_task_languages_declared')) }}

),

final as (

    select
        run_id,
        model,
        model_revision,
        variant,
        task,
        item_id,
        language,
        coalesce(domain, '(not in the item files)') as domain,
        domain_label,
        raw_answer as answer_raw,
        chosen_option,
        -- where the chosen option was shown: its place in the presented order (the key
        -- order itself when the run kept it)
        case
            when chosen_option is not null then {{ dbt.position(
                'chosen_option',
                "coalesce(presented_option_order, '" ~ (mcq_option_sequence() | join('')) ~ "')"
            ) }}
        end as presented_position,
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
