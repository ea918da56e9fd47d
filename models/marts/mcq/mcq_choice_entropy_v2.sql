{#- Per run, task and language: the Shannon entropy (bits) of the choices by presented
    position, normalised by log2 of the task's largest option count (from its item files or
    the choices a harness presented; mcq_options where the task has neither), with its
    bootstrap interval. -#}
with bootstrapped as (

    select * from {{ ref('int_mcq_metrics_bootstrapped') }}
    where metric = 'entropy_bits'

),

described as (

    {{ mcq_with_run('bootstrapped') }}

),

task_options as (

    -- the most options an item of the task has: in its item files, or as a harness
    -- presented it (an answer's n_choices)
    select task, max(n_options) as n_options
    from (
        select task, count(*) as n_options
        from {{ ref('stg_mcq__items') }}
        group by task, item_id, language
        union all
        select task, max(n_choices) as n_options
        from {{ ref('stg_mcq__answers') }}
        group by task
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
