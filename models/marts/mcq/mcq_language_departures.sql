{#- How often each language departs from the others, per model and run: the share of complete
    items on which it departs from the majority answer, and on which it is the odd one out,
    each with its interval and n; any number of languages. -#}
with departures as (

    select * from {{ ref('int_mcq_language_departures_estimated') }}

),

final as (

    select {{ contract_columns('departures') }}
    from departures

)

select * from final
