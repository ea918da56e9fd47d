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

missing as (

    select expected.scenario_id, expected.method, expected.task_id, 'missing' as problem
    from expected
    left join consensus
        on expected.scenario_id = consensus.scenario_id
        and expected.method = consensus.method
        and expected.task_id = consensus.task_id
    where consensus.task_id is null

),

foreign_tasks as (

    select consensus.scenario_id, consensus.method, consensus.task_id, 'foreign' as problem
    from consensus
    left join validated
        on consensus.scenario_id = validated.scenario_id
        and consensus.task_id = validated.task_id
    where validated.task_id is null

),

final as (

    select * from missing
    union all
    select * from foreign_tasks

)

select * from final
