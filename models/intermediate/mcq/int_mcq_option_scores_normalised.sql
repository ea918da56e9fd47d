{#- Each scored item's option distribution: the softmax of the summed log-likelihoods over
    the item's options, per run, task, item and language (the probabilities RankC and the
    Jensen-Shannon divergence compare), and the same of the length-normalised scores
    (log-likelihood per character, what the harness's acc_norm ranks), with the option
    acc_norm picks. Empty when no run scores its options. -#}
with scores as (select * from {{ ref('stg_mcq__option_scores') }}),

per_character as (

    select
        *,
        -- an option of no characters is never acc_norm's pick: the harness's division
        -- gives a negative log-likelihood -inf
        loglik / nullif(option_chars, 0) as loglik_per_char
    from scores

),

shifted as (

    -- subtracting the item's largest score keeps exp() from underflowing
    select
        run_id,
        task,
        item_id,
        language,
        option_key,
        exp(
            loglik - max(loglik) over (partition by run_id, task, item_id, language)
        ) as weight,
        coalesce(
            exp(
                loglik_per_char
                - max(loglik_per_char) over (partition by run_id, task, item_id, language)
            ),
            0
        ) as weight_norm,
        -- acc_norm: the highest log-likelihood per character, the first presented on ties
        -- (the harness's argmax over the options in the order shown)
        row_number() over (
            partition by run_id, task, item_id, language
            order by loglik_per_char desc nulls last, presented_position
        ) as norm_rank
    from per_character

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
        ) as probability,
        weight_norm / nullif(sum(weight_norm) over (
            partition by run_id, task, item_id, language
            order by option_key
            rows between unbounded preceding and unbounded following
        ), 0) as probability_norm,
        norm_rank = 1 as is_norm_choice
    from shifted

)

select * from final
