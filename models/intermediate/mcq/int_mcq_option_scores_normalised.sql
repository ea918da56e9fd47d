{#- Each scored item's option distribution: the softmax of the summed log-likelihoods over
    the item's options, per model, run, item and language (the probabilities RankC and the
    Jensen-Shannon divergence compare). Empty when no run scores its options. -#}
with scores as (

    select * from {{ ref('stg_mcq__option_scores') }}

),

runs as (

    select * from {{ ref('stg_mcq__runs') }}

),

shifted as (

    -- subtracting the item's largest log-likelihood keeps exp() from underflowing
    select
        runs.model,
        runs.variant as run,
        cast(scores.item_id as {{ dbt.type_bigint() }}) as item_id,
        scores.language,
        scores.option_key,
        exp(
            scores.loglik - max(scores.loglik) over (
                partition by scores.run_id, scores.task, scores.item_id, scores.language
            )
        ) as weight
    from scores
    inner join runs on scores.run_id = runs.run_id

),

final as (

    select
        model,
        run,
        item_id,
        language,
        option_key,
        -- summed in option order: the same bits on every build, however the rows arrive
        weight / sum(weight) over (
            partition by model, run, item_id, language
            order by option_key
            rows between unbounded preceding and unbounded following
        ) as probability
    from shifted

)

select * from final
