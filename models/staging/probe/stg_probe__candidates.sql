{#- The design's candidates, with their leading space (what the model continues with). -#}
with source as (select * from {{ ref('probe_candidates') }}),

final as (
    select
        cast(candidate_id as {{ dbt.type_int() }}) as candidate_id,
        cast(candidate as {{ dbt.type_string() }}) as candidate,
        cast(candidate_group as {{ dbt.type_string() }}) as candidate_group
    from source
)

select * from final
