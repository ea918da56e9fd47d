{#- Accuracy against gold per run, task and language, as lm-evaluation-harness computes acc
    and acc_norm, with its standard error, n and coverage, and the calibration of the
    scored option distributions (Brier score, expected calibration error). Every language of
    the task has a row for every run that answered the task; where it has no gold, or the
    run scored no option, the figures are null, never 0 (docs/formulas.md, "Accuracy and
    calibration"). -#}
with measured as (select * from {{ ref('int_mcq_accuracy_measured') }}),

final as (

    {{ mcq_run_mart_columns('measured') }}

)

select * from final
