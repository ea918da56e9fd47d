{#- One page per model: per run (a model revision under one prompt variant) and task, its
    headline figure from each study it appears in, each with its interval and n, and the
    run's provenance. Every figure is read from the mart or model that computes it; none is
    computed again here (docs/scorecard.md). model_scorecard keeps the baseline variant. -#}
with summary as (select * from {{ ref('mcq_agreement_summary', v=2) }}),

runs as (select * from {{ ref('stg_mcq__runs') }}),

accuracy as (select * from {{ ref('int_mcq_accuracy_pooled') }}),

across_languages as (select * from {{ ref('mcq_accuracy_across_languages') }}),

order_effect as (select * from {{ ref('mcq_order_effect', v=2) }}),

run_languages as (select * from {{ ref('int_mcq_run_languages_answered') }}),

rater_pairs as (select * from {{ ref('rater_pair_agreement') }}),

probe_summary as (select * from {{ ref('probe_paired_summary') }}),

probe_runs as (select * from {{ ref('stg_probe__runs') }}),

-- the order effect: where the answers moved most between a revision's baseline run and a
-- run under another variant, on the items both answered; a variant's row compares itself
-- with the baseline, the baseline's row takes the variant and language that moved most
order_pairs as (

    select run_id as scored_run_id, task, variant, language, same_option_pct, ci_low,
        ci_high, n_paired
    from order_effect
    where same_option_pct is not null
    union all
    select baseline_run_id as scored_run_id, task, variant, language, same_option_pct,
        ci_low, ci_high, n_paired
    from order_effect
    where same_option_pct is not null

),

order_worst as (

    select
        *,
        row_number() over (
            partition by scored_run_id, task order by same_option_pct, variant, language
        ) as rank_in_run
    from order_pairs

),

-- as a rater: its Cohen's kappa with each other model on the items both answered, in the
-- rater study's models_as_raters datasets of the run's task, variant and languages
rater_kappas as (

    select
        summary.run_id,
        summary.task,
        avg(rater_pairs.cohen_kappa) as rater_mean_cohen_kappa,
        count(distinct rater_pairs.dataset || '|' || rater_pairs.rater_id || '|'
            || rater_pairs.other_rater_id) as rater_n_pairs
    from summary
    inner join run_languages
        on summary.run_id = run_languages.run_id and summary.task = run_languages.task
    inner join rater_pairs
        on rater_pairs.dataset = {{ models_as_raters_dataset(
            'summary.task', 'summary.variant', 'run_languages.language') }}
        and summary.model in (rater_pairs.rater_id, rater_pairs.other_rater_id)
    where rater_pairs.cohen_kappa is not null
    group by summary.run_id, summary.task

),

-- the model's latest probe run, and its name group furthest from the baseline group
probe_latest as (

    select
        probe_summary.*,
        row_number() over (
            partition by probe_summary.model
            order by probe_runs.finished_at desc, probe_summary.run_id,
                abs(probe_summary.mean_delta) desc, probe_summary.group_name
        ) as rank_in_model
    from probe_summary
    inner join probe_runs on probe_summary.run_id = probe_runs.run_id
    where probe_summary.mean_delta is not null

),

joined as (

    select
        summary.model,
        summary.model_revision,
        summary.variant,
        summary.task,
        summary.run_id,
        runs.model_as_landed,
        runs.source_kind,
        runs.prompt_template,
        runs.prompt_template_hash,
        runs.n_fewshot,
        runs.harness,
        runs.harness_version,
        summary.n_items,
        summary.n_complete,
        summary.full_agreement_pct,
        summary.full_agreement_ci_low,
        summary.full_agreement_ci_high,
        summary.n_language_pairs,
        summary.mean_pairwise_agreement_pct,
        summary.mean_pairwise_agreement_ci_low,
        summary.mean_pairwise_agreement_ci_high,
        accuracy.n_items as n_gold_items,
        accuracy.n_graded,
        accuracy.accuracy_pct,
        accuracy.ci_low as accuracy_ci_low,
        accuracy.ci_high as accuracy_ci_high,
        across_languages.n_items as n_items_all_languages_graded,
        across_languages.all_correct_pct,
        across_languages.all_correct_std_error,
        order_worst.variant as order_effect_variant,
        order_worst.language as order_effect_language,
        order_worst.n_paired as order_effect_n_paired,
        order_worst.same_option_pct as order_effect_same_option_pct,
        order_worst.ci_low as order_effect_ci_low,
        order_worst.ci_high as order_effect_ci_high,
        rater_kappas.rater_n_pairs,
        rater_kappas.rater_mean_cohen_kappa,
        probe_latest.run_id as probe_run_id,
        probe_latest.group_name as probe_group,
        probe_latest.n_messages as probe_n_messages,
        probe_latest.mean_delta as probe_mean_delta_vs_baseline,
        probe_latest.ci_low as probe_ci_low,
        probe_latest.ci_high as probe_ci_high,
        summary.bootstrap_confidence as confidence
    from summary
    inner join runs using (run_id)
    left join accuracy using (run_id, task)
    left join across_languages using (run_id, task)
    left join order_worst
        on summary.run_id = order_worst.scored_run_id
        and summary.task = order_worst.task
        and order_worst.rank_in_run = 1
    left join rater_kappas using (run_id, task)
    left join probe_latest
        on summary.model = probe_latest.model and probe_latest.rank_in_model = 1

),

final as (

    select {{ contract_columns('joined') }}
    from joined

)

select * from final
