with stimuli as (select * from {{ ref('int_probe_stimuli_indexed') }}),

final as (

    select {{ contract_columns('stimuli') }}
    from stimuli

)

select * from final
