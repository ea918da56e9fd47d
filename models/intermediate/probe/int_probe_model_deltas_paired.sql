{#- Two models on the same messages: for every pair of accepted runs over the same design
    (design_hash), group and message, each run's paired delta vs the baseline and their
    difference delta_a - delta_b (run_id_a < run_id_b, so each pair appears once). The
    message is the pairing unit, as within a run. -#}
with deltas as (select * from {{ ref('int_probe_deltas_paired') }}),

runs as (select * from {{ ref('int_probe_runs_accepted') }}),

located as (
    select
        deltas.run_id,
        deltas.msg_id,
        deltas.group_name,
        deltas.delta_vs_baseline,
        runs.model,
        runs.design_hash
    from deltas
    inner join runs on deltas.run_id = runs.run_id
),

final as (
    select
        run_a.design_hash,
        run_a.group_name,
        run_a.run_id as run_id_a,
        run_a.model as model_a,
        run_b.run_id as run_id_b,
        run_b.model as model_b,
        run_a.msg_id,
        run_a.delta_vs_baseline as delta_a,
        run_b.delta_vs_baseline as delta_b,
        run_a.delta_vs_baseline - run_b.delta_vs_baseline as delta_difference
    from located as run_a
    inner join located as run_b
        on run_a.design_hash = run_b.design_hash
        and run_a.group_name = run_b.group_name
        and run_a.msg_id = run_b.msg_id
        and run_a.run_id < run_b.run_id
)

select * from final
