{#- Per run and task, the mean pairwise agreement (docs/formulas.md): the mean over the
    task's language pairs of the share of items both languages answered validly on which
    they agree, with what its standard error needs. The figure is a mean of ratios over
    items, so its variance is taken by linearisation (the delta method, items as the
    resampled unit): item i's influence is (1/P) Σ over the pairs p it enters of
    (agree_ip − r_p) / n_p, and Var ≈ m / (m − 1) · Σ influence² over the m items that enter
    any pair. Set-based, without a resample per pair: at 40 languages a run has 780 pairs. -#}
with pairs as (

    {{ mcq_language_pairs() }}

),

pair_rates as (

    select
        run_id,
        task,
        language_a,
        language_b,
        sum(n_items) as n_items,
        sum(case when option_a = option_b then n_items else 0 end) / sum(n_items) as agreement
    from {{ ref('int_mcq_language_pairs_counted') }}
    group by run_id, task, language_a, language_b

),

run_pairs as (

    select run_id, task, count(*) as n_language_pairs, avg(agreement) as agreement
    from pair_rates
    group by run_id, task

),

influences as (

    select
        pairs.run_id,
        pairs.task,
        pairs.item_id,
        sum(
            ((case when pairs.option_a = pairs.option_b then 1.0 else 0.0 end)
                - pair_rates.agreement) / pair_rates.n_items
        ) / max(run_pairs.n_language_pairs) as influence
    from pairs
    inner join pair_rates
        on pairs.run_id = pair_rates.run_id
        and pairs.task = pair_rates.task
        and pairs.language_a = pair_rates.language_a
        and pairs.language_b = pair_rates.language_b
    inner join run_pairs
        on pairs.run_id = run_pairs.run_id
        and pairs.task = run_pairs.task
    group by pairs.run_id, pairs.task, pairs.item_id

),

spread as (

    select
        run_id,
        task,
        count(*) as n_items_paired,
        sum(influence * influence) as sum_sq_influence
    from influences
    group by run_id, task

),

final as (

    select
        run_pairs.run_id,
        run_pairs.task,
        run_pairs.n_language_pairs,
        spread.n_items_paired,
        100.0 * run_pairs.agreement as mean_pairwise_agreement_pct,
        case
            when spread.n_items_paired > 1 then 100.0 * sqrt(
                spread.sum_sq_influence * spread.n_items_paired / (spread.n_items_paired - 1)
            )
        end as std_error
    from run_pairs
    inner join spread
        on run_pairs.run_id = spread.run_id
        and run_pairs.task = spread.task

)

select * from final
