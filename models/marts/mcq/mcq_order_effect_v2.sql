{#- Each prompt variant against the baseline variant (mcq_baseline_variant) of the same model
    revision, per task and language: the share of items answered validly in both runs whose
    answers point to the same option, with its bootstrap interval, beside the two runs' full
    agreement and its shift (variant − baseline). Shifts of option and position shares are
    in mcq_option_frequency (one row per run). -#}
with consistency as (

    select * from {{ ref('int_mcq_order_consistency_estimated') }}

),

runs as (

    select * from {{ ref('int_mcq_runs_versioned') }}

),

type_counts as (

    select * from {{ ref('int_mcq_types_counted') }}

),

agreement as (

    select
        run_id,
        task,
        {{ share_pct('n_full_agreement', 'n_items - n_incomplete') }} as full_agreement_pct
    from type_counts

),

compared as (

    select
        consistency.run_id,
        consistency.baseline_run_id,
        runs.model,
        runs.model_revision,
        runs.variant,
        '{{ var("mcq_baseline_variant") }}' as baseline_variant,
        consistency.task,
        consistency.language,
        variant_agreement.full_agreement_pct,
        baseline_agreement.full_agreement_pct as full_agreement_pct_baseline,
        variant_agreement.full_agreement_pct - baseline_agreement.full_agreement_pct
            as full_agreement_pct_diff,
        consistency.n_paired,
        consistency.n_same_option,
        consistency.same_option_pct,
        consistency.ci_low,
        consistency.ci_high
    from consistency
    inner join runs on consistency.run_id = runs.run_id
    left join agreement as variant_agreement
        on consistency.run_id = variant_agreement.run_id
        and consistency.task = variant_agreement.task
    left join agreement as baseline_agreement
        on consistency.baseline_run_id = baseline_agreement.run_id
        and consistency.task = baseline_agreement.task

),

final as (

    select {{ contract_columns('compared') }}
    from compared

)

select * from final
