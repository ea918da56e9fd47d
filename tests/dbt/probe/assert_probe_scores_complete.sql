{#- An accepted run is complete: n_stimuli stimuli, each with all n_candidates candidates
    (runs that fail the boundary checks are in int_probe_runs_quarantined instead). -#}
with landed_runs as (select * from {{ ref('stg_probe__runs') }}),

accepted_runs as (select * from {{ ref('int_probe_runs_accepted') }}),

runs as (
    select landed_runs.*
    from landed_runs
    inner join accepted_runs on landed_runs.run_id = accepted_runs.run_id
    where {{ probe_folder_run_id('landed_runs.landing_file') }} = landed_runs.run_id
),

scores as (
    select * from {{ ref('stg_probe__scores') }}
    where {{ probe_folder_run_id('landing_file') }} = run_id
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
