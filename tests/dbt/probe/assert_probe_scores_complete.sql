{#- An accepted run is complete: the scores the marts read (int_probe_scores_normalised) hold
    its n_stimuli stimuli, each with all n_candidates candidates (runs that fail the boundary
    checks are in int_probe_runs_quarantined instead). -#}
with accepted_runs as (select * from {{ ref('int_probe_runs_accepted') }}),

scores as (select * from {{ ref('int_probe_scores_normalised') }}),

per_stimulus as (
    select run_id, stimulus_id, count(*) as n_candidates
    from scores
    group by run_id, stimulus_id
),

per_run as (
    select
        run_id,
        count(*) as n_stimuli,
        min(n_candidates) as min_candidates,
        max(n_candidates) as max_candidates
    from per_stimulus
    group by run_id
),

final as (
    select
        accepted_runs.run_id,
        accepted_runs.n_stimuli as declared_stimuli,
        per_run.n_stimuli as landed_stimuli,
        accepted_runs.n_candidates as declared_candidates,
        per_run.min_candidates,
        per_run.max_candidates
    from accepted_runs
    left join per_run on accepted_runs.run_id = per_run.run_id
    where per_run.run_id is null
        or per_run.n_stimuli <> accepted_runs.n_stimuli
        or per_run.min_candidates <> accepted_runs.n_candidates
        or per_run.max_candidates <> accepted_runs.n_candidates
)

select * from final
