with consensus as (select * from {{ ref('int_ranking_consensus_built') }}),

final as (

    select
        cast(scenario_id as {{ dbt.type_string() }}) as scenario_id,
        cast(method as {{ dbt.type_string() }}) as method,
        cast(position as integer) as position,
        cast(task_id as {{ dbt.type_string() }}) as task_id,
        cast(is_exact as boolean) as is_exact
    from consensus

)

select * from final
