{#- Mean, sample standard deviation (n - 1) and count of the indices per run and group, over
    the per-name rows (messages x names). -#}
with stimuli as (select * from {{ ref('int_probe_stimuli_indexed') }}),

final as (
    select
        run_id,
        group_name,
        {{ probe_index_summary_columns() }}
    from stimuli
    group by run_id, group_name
)

select * from final
