{#- Models compared on accuracy against gold, on the same items: per task, variant,
    unordered pair of runs (two models, or two revisions of one) and language, each one's
    accuracy on the items with a gold both answered, their difference in percentage points
    with a paired bootstrap interval, the discordant items and the exact McNemar p-value,
    raw and Holm-adjusted over the task and variant's pairs of runs × languages. Empty
    where no item has a gold. -#}
with compared as (

    select * from {{ ref('int_mcq_model_accuracy_pairs_compared') }}

),

runs as (

    select * from {{ ref('int_mcq_runs_versioned') }}

),

described as (

    select
        compared.*,
        run_a.model as model_a,
        run_a.model_revision as model_revision_a,
        run_b.model as model_b,
        run_b.model_revision as model_revision_b
    from compared
    inner join runs as run_a on compared.run_id_a = run_a.run_id
    inner join runs as run_b on compared.run_id_b = run_b.run_id

),

final as (

    select {{ contract_columns('described') }}
    from described

)

select * from final
