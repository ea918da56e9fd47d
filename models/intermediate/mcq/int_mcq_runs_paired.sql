{#- Each run of a model revision beside the same revision's baseline run
    (mcq_baseline_variant): per task and language, the items answered validly in both runs
    and how many of them point to the same option in both. Incremental by model revision (a
    row pairs two of its runs): only the revisions whose answers changed are paired again
    (macros/mcq_incremental_groups.sql). -#}
{{ config(**mcq_incremental_by_group(
    "ref('int_mcq_runs_versioned')",
    ['revision_key'],
)) }}

with runs as (

    select * from {{ ref('int_mcq_runs_versioned') }}
    where {{ mcq_in_groups_to_compute(ref('int_mcq_runs_versioned'), ['revision_key']) }}

),

{#- each side reads the answers itself: a CTE read twice is materialised, a copy of every
    answer -#}
{% set valid_answers_of_runs %}
    select answers.*, runs.revision_key
    from {{ ref('int_mcq_answers_normalised') }} as answers
    inner join runs on answers.run_id = runs.run_id
    where answers.is_valid
{% endset %}

baseline as (

    {{ valid_answers_of_runs }}
        and answers.variant = '{{ var("mcq_baseline_variant") }}'

),

compared as (

    {{ valid_answers_of_runs }}
        and answers.variant <> '{{ var("mcq_baseline_variant") }}'

),

final as (

    select
        compared.revision_key,
        compared.run_id,
        baseline.run_id as baseline_run_id,
        compared.task,
        compared.language,
        count(*) as n_paired,
        count(*) filter (where baseline.chosen_option = compared.chosen_option)
            as n_same_option
    from compared
    inner join baseline using (revision_key, task, item_id, language)
    group by
        compared.revision_key, compared.run_id, baseline.run_id, compared.task, compared.language

)

select * from final
