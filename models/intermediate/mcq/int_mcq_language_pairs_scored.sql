{#- Per run, task and pair of languages, over the items both languages scored: the mean and
    sample standard deviation of each item's RankC and Jensen-Shannon divergence (bits), the
    sufficient statistics of their intervals (int_mcq_language_pairs_compared), so no Python
    model reads a row per option score. The definitions are concord_stats.consistency's:

    - RankC (Qi, Fernández & Bisazza 2023) over the N options both languages scored, ranked
      by probability, ties by option key: Σ_j w_j |top-j(a) ∩ top-j(b)| / j with
      w_j = e^(N−j) / Σ_k e^(N−k). An option is in both top-j sets exactly when its worse
      rank m is at most j, so the sum is Σ over options of Σ_{j ≥ m} e^(N−j) / j, divided by
      Σ_k e^(N−k) = (e^N − 1) / (e − 1); the ranks 1..N of the options are the j's.
    - JS = ½ Σ p log2(p / m) + ½ Σ q log2(q / m), m = (p + q) / 2, over the options either
      language scored (an option one language lacks counts as 0 there), 0 log 0 = 0.

    The per-pair moments are window aggregates ordered by item: the same bits on every build,
    however the rows arrive. -#}
with scores as (

    select run_id, task, item_id, language, option_key, probability
    from {{ ref('int_mcq_option_scores_normalised') }}

),

scored_items as (

    select distinct run_id, task, item_id, language from scores

),

pair_items as (

    select
        a.run_id,
        a.task,
        a.item_id,
        a.language as language_a,
        b.language as language_b
    from scored_items as a
    inner join scored_items as b
        on
            a.run_id = b.run_id
            and a.task = b.task
            and a.item_id = b.item_id
            and a.language < b.language

),

pair_options as (

    select
        pair_items.run_id,
        pair_items.task,
        pair_items.item_id,
        pair_items.language_a,
        pair_items.language_b,
        scores.option_key,
        max(case when scores.language = pair_items.language_a then scores.probability end) as p,
        max(case when scores.language = pair_items.language_b then scores.probability end) as q
    from pair_items
    inner join scores
        on
            pair_items.run_id = scores.run_id
            and pair_items.task = scores.task
            and pair_items.item_id = scores.item_id
            and scores.language in (pair_items.language_a, pair_items.language_b)
    group by 1, 2, 3, 4, 5, 6

),

common as (

    select
        run_id,
        task,
        item_id,
        language_a,
        language_b,
        option_key,
        row_number() over (
            partition by run_id, task, item_id, language_a, language_b
            order by p desc, option_key
        ) as rank_a,
        row_number() over (
            partition by run_id, task, item_id, language_a, language_b
            order by q desc, option_key
        ) as rank_b,
        count(*) over (partition by run_id, task, item_id, language_a, language_b) as n_common
    from pair_options
    where p is not null and q is not null

),

rank_c_items as (

    select
        run_id,
        task,
        item_id,
        language_a,
        language_b,
        sum(exp(ranks.n_common - ranks.rank_a) / ranks.rank_a)
        * (exp(1) - 1) / (exp(max(options.n_common)) - 1) as rank_c
    from common as options
    inner join common as ranks using (run_id, task, item_id, language_a, language_b)
    where ranks.rank_a >= greatest(options.rank_a, options.rank_b)
    group by 1, 2, 3, 4, 5

),

js_items as (

    select
        run_id,
        task,
        item_id,
        language_a,
        language_b,
        sum(
            case
                when coalesce(p, 0) > 0
                    then 0.5 * p * ln(p / ((p + coalesce(q, 0)) / 2)) / ln(2)
                else 0
            end
            + case
                when coalesce(q, 0) > 0
                    then 0.5 * q * ln(q / ((coalesce(p, 0) + q) / 2)) / ln(2)
                else 0
            end
        ) as js_divergence
    from pair_options
    group by 1, 2, 3, 4, 5

),

items as (

    -- an item with no option both languages scored has no RankC: the pair's mean is then
    -- null, as the mean of values with a NaN among them
    select *
    from js_items
    left join rank_c_items using (run_id, task, item_id, language_a, language_b)

),

moments as (

    select
        run_id,
        task,
        language_a,
        language_b,
        {%- for figure in ['rank_c', 'js_divergence'] %}
        avg({{ figure }}) over pair as {{ figure }}_mean,
        stddev_samp({{ figure }}) over pair as {{ figure }}_std_dev,
        {%- endfor %}
        count(rank_c) over pair as n_rank_c,
        count(*) over pair as n_scored_items,
        row_number() over (
            partition by run_id, task, language_a, language_b order by item_id
        ) as item_no
    from items
    window pair as (
        partition by run_id, task, language_a, language_b
        order by item_id
        rows between unbounded preceding and unbounded following
    )

),

final as (

    select
        run_id,
        task,
        language_a,
        language_b,
        cast(n_scored_items as {{ dbt.type_bigint() }}) as n_scored_items,
        case when n_rank_c = n_scored_items then rank_c_mean end as rank_c_mean,
        case when n_rank_c = n_scored_items then rank_c_std_dev end as rank_c_std_dev,
        js_divergence_mean,
        js_divergence_std_dev
    from moments
    where item_no = 1

)

select * from final
