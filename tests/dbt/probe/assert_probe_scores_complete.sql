{#- A landed run is complete: n_stimuli stimuli, each with all n_candidates candidates. -#}
with runs as (
    select * from {{ ref('stg_probe__runs') }}
),

scores as (
    select * from {{ ref('stg_probe__scores') }}
),

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
        runs.run_id,
        runs.n_stimuli as declared_stimuli,
        per_run.n_stimuli as landed_stimuli,
        runs.n_candidates as declared_candidates,
        per_run.min_candidates,
        per_run.max_candidates
    from runs
    left join per_run on runs.run_id = per_run.run_id
    where per_run.run_id is null
        or per_run.n_stimuli <> runs.n_stimuli
        or per_run.min_candidates <> runs.n_candidates
        or per_run.max_candidates <> runs.n_candidates
)

select * from final
