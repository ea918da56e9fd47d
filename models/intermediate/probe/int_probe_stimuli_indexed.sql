{#- The reference's indices per stimulus (one message, one name):
    index_reliable_like = sum of P(c) over reliable_like candidates, likewise unreliable_like,
    index_rel_minus_unrel = their difference in [-1, 1]; the top choice is the candidate with
    the highest log-prob (ties to the lower candidate_id) and p_top its probability. -#}
with normalised as (select * from {{ ref('int_probe_scores_normalised') }}),

indexed as (
    select
        {{ probe_stimulus_column_list() }},
        sum(
            case when candidate_group = 'reliable_like' then prob_over_candidates else 0 end
        ) as index_reliable_like,
        sum(
            case when candidate_group = 'unreliable_like' then prob_over_candidates else 0 end
        ) as index_unreliable_like,
        count(*) as n_candidates
    from normalised
    group by {{ probe_stimulus_column_list() }}
),

top_choices as (
    select
        run_id,
        stimulus_id,
        candidate as top_choice,
        prob_over_candidates as p_top
    from normalised
    where logprob_rank = 1
),

final as (
    select
        indexed.run_id,
        indexed.stimulus_id,
        indexed.msg_id,
        indexed.group_name,
        indexed.sender_name,
        indexed.stimulus,
        indexed.n_candidates,
        indexed.index_reliable_like,
        indexed.index_unreliable_like,
        indexed.index_reliable_like - indexed.index_unreliable_like as index_rel_minus_unrel,
        top_choices.top_choice,
        top_choices.p_top
    from indexed
    inner join top_choices
        on indexed.run_id = top_choices.run_id
        and indexed.stimulus_id = top_choices.stimulus_id
)

select * from final
