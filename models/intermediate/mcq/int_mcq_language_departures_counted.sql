{#- Per model, run and language, over the items every language answered validly (complete
    items): how often the language departs from the majority answer (an option held by more
    than half of the languages, docs/formulas.md) and how often it is the odd one out (the
    only language that departs, with three languages or more). Any number of languages: one
    row per language, never a column. -#}
with answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}

),

n_languages as (

    select count(distinct language) as n from answers

),

complete_items as (

    select model, run, item_id
    from answers
    group by model, run, item_id
    having count(*) filter (where is_valid) = (select n from n_languages)

),

valid as (

    select answers.model, answers.run, answers.item_id, answers.language, answers.original_option
    from answers
    inner join complete_items
        on answers.model = complete_items.model
        and answers.run = complete_items.run
        and answers.item_id = complete_items.item_id
    where answers.is_valid

),

option_counts as (

    select model, run, item_id, original_option, count(*) as n_languages_choosing
    from valid
    group by model, run, item_id, original_option

),

majorities as (

    -- at most one option can be held by more than half of the languages
    select model, run, item_id, original_option as majority_option, n_languages_choosing
    from option_counts
    where 2 * n_languages_choosing > (select n from n_languages)

),

final as (

    select
        valid.model,
        valid.run,
        valid.language,
        count(*) as n_items,
        count(*) filter (
            where majorities.majority_option is not null
            and valid.original_option <> majorities.majority_option
        ) as n_departs,
        count(*) filter (
            where majorities.n_languages_choosing = (select n from n_languages) - 1
            and (select n from n_languages) >= 3
            and valid.original_option <> majorities.majority_option
        ) as n_odd_one_out,
        count(*) filter (where majorities.majority_option is null) as n_no_majority
    from valid
    left join majorities
        on valid.model = majorities.model
        and valid.run = majorities.run
        and valid.item_id = majorities.item_id
    group by valid.model, valid.run, valid.language

)

select * from final
