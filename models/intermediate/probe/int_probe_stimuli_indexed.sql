{#- The reference's indices per stimulus (one message, one name):
    index_reliable_like = sum of P(c) over reliable_like candidates, likewise unreliable_like,
    index_rel_minus_unrel = their difference in [-1, 1]; the top choice is the candidate with
    the highest log-prob (ties to the lower candidate_id) and p_top its probability. -#}
with normalised as (select * from {{ ref('int_probe_scores_normalised') }}),

indexed as (
    select
        {{ probe_stimulus_column_list() }},
        count(*) as n_candidates,
        sum(
            case when candidate_group = 'reliable_like' then prob_over_candidates else 0 end
        ) as index_reliable_like,
        sum(
            case when candidate_group = 'unreliable_like' then prob_over_candidates else 0 end
        ) as index_unreliable_like,
        -- logprob_rank 1 is one candidate per stimulus: max() just picks it
        max(case when logprob_rank = 1 then candidate end) as top_choice,
        max(case when logprob_rank = 1 then prob_over_candidates end) as p_top
    from normalised
    group by {{ probe_stimulus_column_list() }}
),

final as (
    select
        {{ probe_stimulus_column_list() }},
        n_candidates,
        index_reliable_like,
        index_unreliable_like,
        index_reliable_like - index_unreliable_like as index_rel_minus_unrel,
        top_choice,
        p_top
    from indexed
)

select * from final
