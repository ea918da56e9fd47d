{#- How often each language departs from the others, per run, task and language: the share
    of complete items on which it departs from the majority answer, and on which it is the
    odd one out, and its answer agreement with the pivot language (mcq_pivot_language), each
    with its interval and n; any number of languages. -#}
with departures as (select * from {{ ref('int_mcq_language_departures_estimated') }}),

described as (

    {{ mcq_with_run('departures') }}

),

pairs as (select * from {{ ref('int_mcq_language_pairs_compared') }}),

with_pivot as (

    select
        described.*,
        '{{ var("mcq_pivot_language") }}' as pivot_language,
        pairs.n_items as n_pivot_items,
        pairs.agreement_pct as pivot_agreement_pct,
        pairs.agreement_ci_low as pivot_agreement_ci_low,
        pairs.agreement_ci_high as pivot_agreement_ci_high
    from described
    left join pairs
        on described.run_id = pairs.run_id
        and described.task = pairs.task
        and described.language <> '{{ var("mcq_pivot_language") }}'
        and (
            (pairs.language_a = described.language
                and pairs.language_b = '{{ var("mcq_pivot_language") }}')
            or (pairs.language_b = described.language
                and pairs.language_a = '{{ var("mcq_pivot_language") }}')
        )

),

final as (

    select {{ contract_columns('with_pivot') }}
    from with_pivot

)

select * from final
