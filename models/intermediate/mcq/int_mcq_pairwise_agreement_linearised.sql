{#- Per run, task and item entering any language pair: the item's influence on the mean
    pairwise agreement (docs/formulas.md), beside the run's point figure. The figure is a mean
    over the P pairs of ratios a_p / m_p over items, so its variance is taken by
    linearisation (the delta method, items as the resampled unit): item i's influence is
    u_i = (1/P) Σ over the pairs p it enters of (agree_ip − a_p/m_p) / m_p, and int_mcq_
    pairwise_agreement_estimated takes Var = M/(M − 1) · Σ u_i² over the M items.
    Set-based (at 40 languages a run has 780 pairs per item), and the same bits on every
    build: each term is rounded to a decimal before it is summed, so the sums are exact
    whatever order the threads add them in. -#}
with pairs as (

    {{ mcq_language_pairs() }}

),

pair_counts as (

    select
        run_id,
        task,
        language_a,
        language_b,
        sum(n_items) as n_items,
        sum(case when option_a = option_b then n_items else 0 end) as n_agree
    from {{ ref('int_mcq_language_pairs_counted') }}
    group by run_id, task, language_a, language_b

),

run_pairs as (

    select
        run_id,
        task,
        count(*) as n_language_pairs,
        sum(cast(n_agree / n_items as decimal(38, 18))) / count(*) as agreement
    from pair_counts
    group by run_id, task

),

influences as (

    select
        pairs.run_id,
        pairs.task,
        pairs.item_id,
        sum(cast(
            ((case when pairs.option_a = pairs.option_b then 1 else 0 end) * pair_counts.n_items
                - pair_counts.n_agree) / (pair_counts.n_items * pair_counts.n_items)
            as decimal(38, 18)
        )) as influence_sum
    from pairs
    inner join pair_counts
        on pairs.run_id = pair_counts.run_id
        and pairs.task = pair_counts.task
        and pairs.language_a = pair_counts.language_a
        and pairs.language_b = pair_counts.language_b
    group by pairs.run_id, pairs.task, pairs.item_id

),

final as (

    select
        influences.run_id,
        influences.task,
        influences.item_id,
        cast(influences.influence_sum as double) / run_pairs.n_language_pairs as influence,
        run_pairs.n_language_pairs,
        100 * cast(run_pairs.agreement as double) as mean_pairwise_agreement_pct
    from influences
    inner join run_pairs
        on influences.run_id = run_pairs.run_id
        and influences.task = run_pairs.task

)

select * from final
