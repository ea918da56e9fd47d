{#- Per run, task and influence: the items entering any language pair with that influence on
    the mean pairwise agreement (docs/formulas.md), beside the run's point figure. The figure is a mean
    over the P pairs of ratios a_p / m_p over items, so its variance is taken by
    linearisation (the delta method, items as the resampled unit): item i's influence is
    u_i = (1/P) Σ over the pairs p it enters of (agree_ip − a_p/m_p) / m_p, and
    int_mcq_pairwise_agreement_estimated takes Var = M/(M − 1) · Σ u_i² over the M items.

    Two ways to the same u_i. A run whose every item has a valid answer in every language
    (the common case) has m_p = M for every pair, so u_i = (A_i − Σ A / M) / (P M) with A_i
    the item's agreeing pairs, Σ over its options of k (k − 1) / 2, counted with its type
    (int_mcq_items_classified). Any other run pairs its languages item by item (780 pairs at 40 languages).
    Either way the same bits on every build: integers until the last division, and each
    paired term rounded to a decimal before it is summed, so no sum depends on the order
    the threads add in. Incremental by run: a run's influences depend on its answers alone,
    so only the runs whose answers changed are computed again
    (macros/mcq_incremental_groups.sql). -#}
{{ config(**mcq_incremental_by_group(
    "ref('int_mcq_runs_versioned')",
    ['run_id'],
)) }}

with runs_checked as (

    select
        run_id,
        task,
        bool_and(n_valid = n_languages) and max(n_languages) >= 2 as is_complete
    from {{ ref('int_mcq_items_classified') }}
    where {{ mcq_in_groups_to_compute(ref('int_mcq_runs_versioned'), ['run_id']) }}
    group by run_id, task

),

complete_runs as (select run_id, task from runs_checked where is_complete),

paired_runs as (select run_id, task from runs_checked where not is_complete),

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

-- complete runs: each item's agreeing pairs, counted with its type (int_mcq_items_classified)
agreeing_pairs as (

    select items.run_id, items.task, items.item_id, items.n_agreeing_pairs as n_agreeing
    from {{ ref('int_mcq_items_classified') }} as items
    inner join complete_runs
        on items.run_id = complete_runs.run_id and items.task = complete_runs.task

),

-- each complete run's items and agreeing pairs, joined back to its items (a window over
-- the run's items sorted them: 1.83 s against 1.43 s at 10^7 answers)
complete_sums as (

    select
        run_id,
        task,
        count(*) as n_items,
        sum(n_agreeing) as n_agreeing
    from agreeing_pairs
    group by run_id, task

),

complete_influences as (

    select
        agreeing_pairs.run_id,
        agreeing_pairs.task,
        agreeing_pairs.item_id,
        (agreeing_pairs.n_agreeing * complete_sums.n_items - complete_sums.n_agreeing)
        / (complete_sums.n_items * complete_sums.n_items) as influence_sum
    from agreeing_pairs
    inner join complete_sums
        on agreeing_pairs.run_id = complete_sums.run_id
        and agreeing_pairs.task = complete_sums.task

),

-- any other run: item by item over its pairs of languages
pairs as (

    {{ mcq_language_pairs(runs='paired_runs') }}

),

paired_influences as (

    select
        pairs.run_id,
        pairs.task,
        pairs.item_id,
        cast(sum(cast(
            ((case when pairs.option_a = pairs.option_b then 1 else 0 end) * pair_counts.n_items
                - pair_counts.n_agree) / (pair_counts.n_items * pair_counts.n_items)
            as decimal(38, 18)
        )) as double) as influence_sum
    from pairs
    inner join pair_counts using (run_id, task, language_a, language_b)
    group by pairs.run_id, pairs.task, pairs.item_id

),

influences as (

    select * from complete_influences
    union all
    select * from paired_influences

),

influenced as (

    select
        influences.run_id,
        influences.task,
        influences.influence_sum / run_pairs.n_language_pairs as influence,
        run_pairs.n_language_pairs,
        100 * cast(run_pairs.agreement as double) as mean_pairwise_agreement_pct
    from influences
    inner join run_pairs using (run_id, task)

),

final as (

    -- the items of a run with the same influence, counted: a complete run's items have at
    -- most one influence per count of agreeing pairs (0 to P), so the table holds a few rows
    -- per run, not one per item (3.3 M rows at 10^7 answers, read one run at a time by
    -- int_mcq_pairwise_agreement_estimated); the same float on every item alike, so the sum
    -- of squares is the same to the bit
    select
        run_id,
        task,
        influence,
        count(*) as n_items,
        n_language_pairs,
        mean_pairwise_agreement_pct
    from influenced
    group by run_id, task, influence, n_language_pairs, mean_pairwise_agreement_pct

)

select * from final
