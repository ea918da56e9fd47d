{#- Accuracy against gold per run, task and language of the run
    (int_mcq_run_languages_answered): n, n_correct, acc and acc_norm in percent with the
    harness's standard error, coverage, and the calibration of the scored options
    (int_mcq_calibration_estimated). Where there is no gold or nothing was scored the figures are null, never 0
    (docs/formulas.md, "Accuracy and calibration"). -#}
with graded as (select * from {{ ref('int_mcq_answers_graded') }}),

gold as (

    select * from {{ ref('int_mcq_golds_gathered') }}
    where gold_option is not null

),

-- each run's languages in each task it answered (a small table, not the answers again)
cells as (select * from {{ ref('int_mcq_run_languages_answered') }}),

calibration as (select * from {{ ref('int_mcq_calibration_estimated') }}),

gold_counted as (

    select
        task,
        language,
        count(*) as n_gold_items
    from gold
    group by task, language

),

graded_counted as (

    select
        run_id,
        task,
        language,
        count(*) as n_items,
        count(case when is_correct then 1 end) as n_correct,
        count(is_correct_norm) as n_scored_items,
        count(case when is_correct_norm then 1 end) as n_correct_norm
    from graded
    group by run_id, task, language

),

counted as (

    select
        cells.run_id,
        cells.task,
        cells.language,
        coalesce(gold_counted.n_gold_items, 0) as n_gold_items,
        coalesce(graded_counted.n_items, 0) as n_items,
        coalesce(graded_counted.n_correct, 0) as n_correct,
        coalesce(graded_counted.n_scored_items, 0) as n_scored_items,
        coalesce(graded_counted.n_correct_norm, 0) as n_correct_norm
    from cells
    left join gold_counted using (task, language)
    left join graded_counted using (run_id, task, language)

),

final as (

    select
        counted.*,
        {{ share_pct('counted.n_correct', 'counted.n_items') }} as accuracy_pct,
        {{ share_std_error_pp('counted.n_correct', 'counted.n_items') }} as accuracy_std_error,
        {{ share_pct('counted.n_items', 'counted.n_gold_items') }} as coverage_pct,
        {{ share_pct('counted.n_correct_norm', 'counted.n_scored_items') }}
            as accuracy_norm_pct,
        {{ share_std_error_pp('counted.n_correct_norm', 'counted.n_scored_items') }}
            as accuracy_norm_std_error,
        calibration.brier_score,
        calibration.expected_calibration_error,
        calibration.brier_score_norm,
        calibration.expected_calibration_error_norm
    from counted
    left join calibration using (run_id, task, language)

)

select * from final
