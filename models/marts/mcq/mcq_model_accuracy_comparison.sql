{#- Models compared on accuracy against gold, on the same items: per task, variant,
    unordered pair of runs (two models, or two revisions of one) and language, each one's
    accuracy on the items with a gold both answered, their difference in percentage points
    with a paired bootstrap interval, the discordant items and the exact McNemar p-value,
    raw and Holm-adjusted over the task and variant's pairs of runs × languages. Empty
    where no item has a gold. -#}
with compared as (select * from {{ ref('int_mcq_model_accuracy_pairs_compared') }}),

final as (

    {{ mcq_run_pair_mart_columns('compared') }}

)

select * from final
