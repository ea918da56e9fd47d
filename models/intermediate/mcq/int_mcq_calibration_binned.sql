{#- Calibration's sufficient statistics, counted where the scores lie: per run, task,
    language, distribution ('summed': the softmax of the summed log-likelihoods,
    'length_normalised': of the log-likelihoods per character) and confidence bin, the scored items with a gold, how many the
    top option got right, their summed confidence and their summed squared error. The top
    option is the most probable, the first in key order on ties; its probability is the
    item's confidence, in bin ceil(confidence · b) − 1 of b = var mcq_calibration_bins,
    clipped to the first and last (0 falls in the first); an item whose distribution has no
    probability at all has no bin (null). The squared error is Brier's: Σ over the item's
    options (p − y)², an option not scored counting p = 0. int_mcq_calibration_estimated
    computes the Brier score and the ECE from these (concord_stats.consistency); sums run
    in item (and option) order, so a build gives the same bits every time. -#}
{% set n_bins = var('mcq_calibration_bins') %}

with golds as (

    select task, item_id, language, gold_option
    from {{ ref('int_mcq_golds_gathered') }}
    where gold_option is not null

),

scored as (

    select
        scores.run_id,
        scores.task,
        scores.item_id,
        scores.language,
        scores.option_key,
        scores.probability,
        scores.probability_norm,
        golds.gold_option
    from {{ ref('int_mcq_option_scores_normalised') }} as scores
    inner join golds
        on scores.task = golds.task
        and scores.item_id = golds.item_id
        and scores.language = golds.language

),

distributions as (

    select run_id, task, item_id, language, option_key, gold_option,
        'summed' as distribution, probability as p
    from scored
    union all
    select run_id, task, item_id, language, option_key, gold_option,
        'length_normalised' as distribution, probability_norm as p
    from scored

),

per_option as (

    select
        *,
        -- the item's squared error over its scored options, summed in key order
        sum(power(coalesce(p, 0) - case when option_key = gold_option then 1 else 0 end, 2))
            over (
                partition by run_id, task, language, distribution, item_id
                order by option_key
                rows between unbounded preceding and unbounded following
            ) as scored_error,
        max(case when option_key = gold_option then 1 else 0 end) over (
            partition by run_id, task, language, distribution, item_id
        ) as gold_is_scored,
        row_number() over (
            partition by run_id, task, language, distribution, item_id
            order by p desc nulls last, option_key
        ) as rank_in_item
    from distributions

),

per_item as (

    select
        run_id,
        task,
        language,
        distribution,
        item_id,
        -- a gold no option of the item was scored for: (0 − 1)²
        scored_error + (1 - gold_is_scored) as squared_error,
        p as confidence,
        case when p is not null and option_key = gold_option then 1 else 0 end as is_correct,
        case
            when p is not null
                then least(greatest(cast(ceil(p * {{ n_bins }}) as integer) - 1, 0),
                    {{ n_bins - 1 }})
        end as calibration_bin
    from per_option
    where rank_in_item = 1

),

summed as (

    select
        run_id,
        task,
        language,
        distribution,
        calibration_bin,
        count(*) over bin_items as n_items,
        sum(is_correct) over bin_items as n_correct,
        sum(confidence) over bin_items as confidence_sum,
        sum(squared_error) over bin_items as squared_error_sum,
        row_number() over (
            partition by run_id, task, language, distribution, calibration_bin
            order by item_id
        ) as item_in_bin
    from per_item
    window bin_items as (
        partition by run_id, task, language, distribution, calibration_bin
        order by item_id
        rows between unbounded preceding and unbounded following
    )

),

final as (

    select
        run_id,
        task,
        language,
        distribution,
        calibration_bin,
        n_items,
        n_correct,
        confidence_sum,
        squared_error_sum
    from summed
    where item_in_bin = 1

)

select * from final
