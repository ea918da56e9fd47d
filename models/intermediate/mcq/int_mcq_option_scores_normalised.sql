{#- Each scored item's option distribution: the softmax of the summed log-likelihoods over
    the item's options, per run, task, item and language (the probabilities RankC and the
    Jensen-Shannon divergence compare). Empty when no run scores its options. -#}
with scores as (

    select * from {{ ref('stg_mcq__option_scores') }}

),

shifted as (

    -- subtracting the item's largest log-likelihood keeps exp() from underflowing
    select
        run_id,
        task,
        item_id,
        language,
        option_key,
        exp(
            loglik - max(loglik) over (partition by run_id, task, item_id, language)
        ) as weight
    from scores

),

final as (

    select
        run_id,
        task,
        item_id,
        language,
        option_key,
        -- summed in option order: the same bits on every build, however the rows arrive
        weight / sum(weight) over (
            partition by run_id, task, item_id, language
            order by option_key
            rows between unbounded preceding and unbounded following
        ) as probability
    from shifted

)

select * from final
