{#- Models compared on the same items: per task, variant and unordered pair of runs (two
    models, or two revisions of one), each one's full agreement on the items both answered
    completely, their difference in percentage points with a paired bootstrap interval, the
    discordant items and the exact McNemar p-value, raw and Holm-adjusted over the pairs of
    the task and variant. -#}
with compared as (select * from {{ ref('int_mcq_model_pairs_compared') }}),

final as (

    {{ mcq_run_pair_mart_columns('compared') }}

)

select * from final
