{#- The softmax over each stimulus's candidate set, recomputed from the landed log-probs:
    P(c) = exp(lp_c - m) / sum_j exp(lp_j - m), m = max_j lp_j (shifting by m avoids
    underflow; it cancels in the ratio). -#}
with landed_scores as (select * from {{ ref('stg_probe__scores') }}),

accepted_runs as (select * from {{ ref('int_probe_runs_accepted') }}),

scores as (
    select landed_scores.*
    from landed_scores
    inner join accepted_runs on landed_scores.run_id = accepted_runs.run_id
    -- rows of a foreign folder that claim an accepted run's id are not that run's
    where {{ probe_folder_run_id('landed_scores.landing_file') }} = landed_scores.run_id
),

shifted as (
    select
        scores.*,
        exp(logprob - max(logprob) over (partition by run_id, stimulus_id)) as shifted_prob
    from scores
),

final as (
    select
        {{ probe_stimulus_column_list() }},
        candidate_id,
        candidate,
        candidate_group,
        logprob,
        n_tokens,
        exp(-logprob / n_tokens) as ppl,
        shifted_prob
        / sum(shifted_prob) over (partition by run_id, stimulus_id) as prob_over_candidates,
        row_number() over (
            partition by run_id, stimulus_id order by logprob desc, candidate_id
        ) as logprob_rank
    from shifted
)

select * from final
