{#- The landed runs that passed the boundary checks (int_probe_runs_quarantined): the only
    runs the marts read. -#}
with runs as (select * from {{ ref('stg_probe__runs') }}),

quarantined as (select * from {{ ref('int_probe_runs_quarantined') }}),

final as (
    select
        runs.run_id,
        runs.model,
        runs.config_hash,
        runs.design_hash,
        runs.dtype,
        runs.finished_at,
        runs.n_stimuli,
        runs.n_candidates
    from runs
    where {{ probe_folder_run_id('runs.landing_file') }} = runs.run_id
        and not exists (
            select 1 from quarantined where quarantined.record_key = runs.run_id
        )
)

select * from final
