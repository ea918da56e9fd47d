{#- Per run, task and language, over the complete items (every one of the task's languages
    answered validly; int_mcq_items_classified): how often the language departs from the
    majority answer and how often it is the odd one out (the only departing language, with
    three languages or more). Any number of languages: one row per language, never a
    column. -#}
with answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}
    where is_valid

),

items as (

    select * from {{ ref('int_mcq_items_classified') }}
    where disagreement_type <> 'incomplete'

),

final as (

    select
        answers.run_id,
        answers.task,
        answers.language,
        count(*) as n_items,
        count(*) filter (
            where items.majority_option is not null
            and answers.chosen_option <> items.majority_option
        ) as n_departs,
        count(*) filter (
            where items.disagreement_type = 'one_diverged'
            and answers.chosen_option <> items.majority_option
        ) as n_odd_one_out,
        count(*) filter (where items.disagreement_type = 'no_majority') as n_no_majority
    from answers
    inner join items using (run_id, task, item_id)
    group by answers.run_id, answers.task, answers.language

)

select * from final
