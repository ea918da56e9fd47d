{#- Models side by side on the same messages: per pair of runs over one design and group,
    each model's mean paired delta vs the baseline and the mean of their per-message
    difference, with its bootstrap interval and sign-flip p-value (paired by message). -#}
with pairs as (select * from {{ ref('int_probe_model_deltas_paired') }}),

resampled as (select * from {{ ref('int_probe_model_differences_resampled') }}),

summarised as (
    select
        run_id_a,
        run_id_b,
        group_name,
        design_hash,
        model_a,
        model_b,
        avg(delta_a) as mean_delta_a,
        avg(delta_b) as mean_delta_b,
        avg(delta_difference) as mean_difference
    from pairs
    group by run_id_a, run_id_b, group_name, design_hash, model_a, model_b
),

final as (
    select
        summarised.design_hash,
        summarised.group_name,
        summarised.run_id_a,
        summarised.model_a,
        summarised.run_id_b,
        summarised.model_b,
        resampled.n_messages,
        summarised.mean_delta_a,
        summarised.mean_delta_b,
        summarised.mean_difference,
        {{ probe_resampling_columns('resampled') }}
    from summarised
    inner join resampled using (run_id_a, run_id_b, group_name)
)

select * from final
