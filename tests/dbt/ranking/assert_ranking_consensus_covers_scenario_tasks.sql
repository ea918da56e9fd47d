{#- Every consensus order (scenario, method) holds exactly the scenario's tasks: none
    missing, none foreign. is_permutation checks positions 1..k and distinct tasks; this
    checks that the k tasks are the right ones. -#}
with consensus as (select * from {{ ref('ranking_consensus') }}),

validated as (

    select distinct scenario_id, task_id from {{ ref('int_ranking_orders_validated') }}

),

methods as (

    select distinct scenario_id, method from consensus

),

expected as (

    select
        methods.scenario_id,
        methods.method,
        validated.task_id
    from methods
    inner join validated
        on methods.scenario_id = validated.scenario_id

),

compared as (

    {#- `expected` pairs every (scenario, method) of the consensus with all the scenario's
        tasks, so a consensus row that matches none of it holds a foreign task -#}
    select
        coalesce(expected.scenario_id, consensus.scenario_id) as scenario_id,
        coalesce(expected.method, consensus.method) as method,
        coalesce(expected.task_id, consensus.task_id) as task_id,
        case
            when consensus.task_id is null then 'missing'
            when expected.task_id is null then 'foreign'
        end as problem
    from expected
    full outer join consensus using (scenario_id, method, task_id)

),

final as (

    select * from compared
    where problem is not null

)

select * from final
