{#- One row per run, task and language the run is compared in: its task's languages in which
    it has at least one answer, valid or not (docs/formulas.md, "A task's languages"). The
    answers hold only the languages their task compares (int_mcq_answers_normalised), so
    these are the languages of the run's answers. An item of the run is incomplete only when
    one of these has no valid answer; a run is never measured against a language only another
    run of its task answered. Incremental by run, as int_mcq_items_classified. -#}
{{ config(**mcq_incremental_by_group(
    "ref('int_mcq_runs_versioned')",
    ['run_id'],
)) }}

with answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}
    where {{ mcq_in_groups_to_compute(ref('int_mcq_runs_versioned'), ['run_id']) }}

),

final as (

    select distinct run_id, task, language
    from answers

)

select * from final
