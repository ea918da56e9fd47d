{#- Two languages side by side on the same items: per run, task, unordered pair of languages
    (language_a < language_b) and item that both answered validly, the option each chose.
    The paired unit of mcq_language_pair_consistency and of the mean pairwise agreement: any
    number of languages, one row per pair and item. -#}
with answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}
    where is_valid

),

final as (

    select
        a.run_id,
        a.task,
        a.language as language_a,
        b.language as language_b,
        a.item_id,
        a.chosen_option as option_a,
        b.chosen_option as option_b
    from answers as a
    inner join answers as b
        on a.run_id = b.run_id
        and a.task = b.task
        and a.item_id = b.item_id
        and a.language < b.language

)

select * from final
