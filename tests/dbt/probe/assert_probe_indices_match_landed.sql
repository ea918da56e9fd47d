{#- The warehouse recomputes the indices from the landed log-probs; they must agree with the
    indices the probe computed and landed (to floating-point noise), stimulus by stimulus. -#}
with landed as (
    select * from {{ ref('stg_probe__stimulus_indices') }}
),

recomputed as (
    select * from {{ ref('int_probe_stimuli_indexed') }}
),

compared as (
    select
        coalesce(landed.run_id, recomputed.run_id) as run_id,
        coalesce(landed.stimulus_id, recomputed.stimulus_id) as stimulus_id,
        landed.index_rel_minus_unrel as landed_index,
        recomputed.index_rel_minus_unrel as recomputed_index,
        landed.top_choice as landed_top_choice,
        recomputed.top_choice as recomputed_top_choice
    from landed
    full outer join recomputed
        on landed.run_id = recomputed.run_id
        and landed.stimulus_id = recomputed.stimulus_id
)

select * from compared
where landed_index is null
    or recomputed_index is null
    or abs(landed_index - recomputed_index) > 1e-9
    or landed_top_choice <> recomputed_top_choice
