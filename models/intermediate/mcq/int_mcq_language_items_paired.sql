{#- Two languages side by side on the same items: per model, run, unordered pair of
    languages (language_a < language_b) and item that both answered validly, the original
    option each chose. The paired unit of mcq_language_pair_consistency: any number of
    languages, one row per pair and item. -#}
with answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}
    where is_valid

),

final as (

    select
        a.model,
        a.run,
        a.language as language_a,
        b.language as language_b,
        a.item_id,
        a.original_option as option_a,
        b.original_option as option_b
    from answers as a
    inner join answers as b
        on a.model = b.model
        and a.run = b.run
        and a.item_id = b.item_id
        and a.language < b.language

)

select * from final
