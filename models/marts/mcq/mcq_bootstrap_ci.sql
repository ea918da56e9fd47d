with bootstrapped as (

    select * from {{ ref('int_mcq_metrics_bootstrapped') }}

),

final as (

    select {{ contract_columns('bootstrapped') }}
    from bootstrapped

)

select * from final
