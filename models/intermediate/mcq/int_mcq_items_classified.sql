{#- One row per model, run and item: the presented letter in each language, the original
    option it points to, and the disagreement type. Incremental by model and run: only the
    groups whose answers changed are classified again (macros/mcq_incremental_groups.sql). -#}
{{ config(
    materialized=incremental_materialization(),
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{{ mcq_forget_changed_groups(ref('int_mcq_runs_versioned'), ['model', 'run']) }}",
    post_hook="{{ mcq_keep_group_versions(ref('int_mcq_runs_versioned'), ['model', 'run']) }}",
) }}

with answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}
    where {{ mcq_in_groups_to_compute(ref('int_mcq_runs_versioned'), ['model', 'run']) }}

),

pivoted as (

    select
        model,
        run,
        item_id,
        {% for lang in var('mcq_languages') %}
        max(case when language = '{{ lang }}' then answer end) as answer_{{ lang }},
        max(case when language = '{{ lang }}' then original_option end)
            as original_option_{{ lang }},
        {% endfor %}
        -- the languages of a row share one domain (checked upstream)
        max(domain) as domain
    from answers
    group by model, run, item_id

),

classified as (

    select
        *,
        {{ mcq_disagreement_type('answer_en', 'answer_it', 'answer_fa') }} as disagreement_type
    from pivoted

),

final as (

    select
        model,
        run,
        item_id,
        domain,
        answer_en,
        answer_it,
        answer_fa,
        original_option_en,
        original_option_it,
        original_option_fa,
        case
            when disagreement_type <> 'incomplete' then disagreement_type = 'all_same'
        end as full_agreement,
        disagreement_type
    from classified

)

select * from final
