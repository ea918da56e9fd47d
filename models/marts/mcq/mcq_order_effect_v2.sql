{#- Each prompt variant against the baseline variant (mcq_baseline_variant) of the same model
    revision, per task and language: the share of items answered validly in both runs whose
    answers point to the same option, with its bootstrap interval, beside the two runs' full
    agreement and its shift (variant − baseline). Shifts of option and position shares are
    in mcq_option_frequency (one row per run). -#}
with consistency as (select * from {{ ref('int_mcq_order_consistency_estimated') }}),

described as (

    {{ mcq_with_run('consistency') }}

),

type_counts as (select * from {{ ref('int_mcq_types_counted') }}),

agreement as (

    select
        run_id,
        task,
        {{ share_pct('n_full_agreement', 'n_items - n_incomplete') }} as full_agreement_pct
    from type_counts

),

compared as (

    select
        described.run_id,
        described.baseline_run_id,
        described.model,
        described.model_revision,
        described.variant,
        '{{ var("mcq_baseline_variant") }}' as baseline_variant,
        described.task,
        described.language,
        variant_agreement.full_agreement_pct,
        baseline_agreement.full_agreement_pct as full_agreement_pct_baseline,
        variant_agreement.full_agreement_pct - baseline_agreement.full_agreement_pct
            as full_agreement_pct_diff,
        described.n_paired,
        described.n_same_option,
        described.same_option_pct,
        described.ci_low,
        described.ci_high
    from described
    left join agreement as variant_agreement
        on described.run_id = variant_agreement.run_id
        and described.task = variant_agreement.task
    left join agreement as baseline_agreement
        on described.baseline_run_id = baseline_agreement.run_id
        and described.task = baseline_agreement.task

),

final as (

    select {{ contract_columns('compared') }}
    from compared

)

select * from final
