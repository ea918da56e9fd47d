{#- Per run, task and pair of languages, the contingency table of the options the two chose
    on the items both answered validly: the sufficient statistics of their agreement and
    Cohen's kappa (int_mcq_language_pairs_compared). -#}
with pairs as (

    {{ mcq_language_pairs() }}

),

final as (

    select
        run_id,
        task,
        language_a,
        language_b,
        option_a,
        option_b,
        count(*) as n_items
    from pairs
    group by run_id, task, language_a, language_b, option_a, option_b

)

select * from final
