{#- Models compared on the same items: per unordered pair of models and run, each one's full
    agreement on the items both answered completely, their difference in percentage points
    with a paired bootstrap interval, the discordant items and the exact McNemar p-value,
    raw and Holm-adjusted over the run's model pairs. -#}
with compared as (

    select * from {{ ref('int_mcq_model_pairs_compared') }}

),

final as (

    select {{ contract_columns('compared') }}
    from compared

)

select * from final
