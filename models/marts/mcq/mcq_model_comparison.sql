{#- Models compared on the same items: per task, variant and unordered pair of runs (two
    models, or two revisions of one), each one's full agreement on the items both answered
    completely, their difference in percentage points with a paired bootstrap interval, the
    discordant items and the exact McNemar p-value, raw and Holm-adjusted over the pairs of
    the task and variant. -#}
with compared as (

    select * from {{ ref('int_mcq_model_pairs_compared') }}

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
