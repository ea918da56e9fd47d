with deltas as (select * from {{ ref('int_probe_deltas_paired') }}),

resampled as (select * from {{ ref('int_probe_deltas_resampled') }}),

runs as (select * from {{ ref('int_probe_runs_accepted') }}),

summarised as (
    select
        run_id,
        group_name,
        baseline_group,
        avg(delta_vs_baseline) as mean_delta,
        stddev_samp(delta_vs_baseline) as std_delta,
        avg(cast(case when delta_vs_baseline < 0 then 1 else 0 end as double)) as frac_negative
    from deltas
    group by run_id, group_name, baseline_group
),

final as (
    select
        summarised.run_id,
        runs.model,
        runs.design_hash,
        summarised.group_name,
        summarised.baseline_group,
        resampled.n_messages,
        summarised.mean_delta,
        summarised.std_delta,
        summarised.frac_negative,
        {{ probe_resampling_columns('resampled') }}
    from summarised
    inner join resampled using (run_id, group_name)
    inner join runs on summarised.run_id = runs.run_id
)

select * from final
