{#- Per run, task and language: the Shannon entropy (bits) of the choices by presented
    position, normalised by log2 of the task's largest option count (from its item files or
    scored options; mcq_options where the task has neither), with its bootstrap interval. -#}
with bootstrapped as (

    select * from {{ ref('int_mcq_metrics_bootstrapped') }}
    where metric = 'entropy_bits'

),

described as (

    {{ mcq_with_run('bootstrapped') }}

),

item_options as (

    select task, item_id, language, option_key from {{ ref('stg_mcq__items') }}
    union
    select task, item_id, language, option_key from {{ ref('stg_mcq__option_scores') }}

),

task_options as (

    select task, max(n_options) as n_options
    from (
        select task, item_id, language, count(*) as n_options
        from item_options
        group by task, item_id, language
    ) as per_item
    group by task

),

final as (

    select
        described.run_id,
        described.model,
        described.model_revision,
        described.variant,
        described.task,
        described.language,
        described.estimate as entropy_bits,
        -- normalised by the entropy of a uniform choice among the task's options
        described.estimate / nullif(
            log2(coalesce(task_options.n_options, {{ var('mcq_options') | length }})), 0
        ) as entropy_norm,
        described.boot_mean,
        described.ci_low,
        described.ci_high,
        described.bootstrap_resamples,
        described.bootstrap_confidence,
        described.bootstrap_seed
    from described
    left join task_options on described.task = task_options.task

)

select * from final
