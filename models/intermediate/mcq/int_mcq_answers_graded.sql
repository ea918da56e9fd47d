{#- Each answer against its item's gold: per run, task, item and language that has a gold
    (int_mcq_golds_gathered) and an answer of the run, valid or not, whether it is correct
    (an invalid answer is wrong) and, where the run scored the item's options, whether
    acc_norm's pick is (null where it did not). An item without gold, or one the run did
    not answer, is not here: it is left out of every n, never counted as 0. -#}
with answers as (select * from {{ ref('int_mcq_answers_normalised') }}),

gold as (

    select * from {{ ref('int_mcq_golds_gathered') }}
    where gold_option is not null

),

norm_choices as (

    select
        run_id,
        task,
        item_id,
        language,
        option_key as norm_option
    from {{ ref('int_mcq_option_scores_normalised') }}
    where is_norm_choice

),

final as (

    select
        answers.run_id,
        answers.variant,
        answers.task,
        answers.item_id,
        answers.language,
        answers.chosen_option,
        gold.gold_option,
        coalesce(answers.chosen_option = gold.gold_option, false) as is_correct,
        norm_choices.norm_option,
        norm_choices.norm_option = gold.gold_option as is_correct_norm
    from answers
    inner join gold
        on answers.task = gold.task
        and answers.item_id = gold.item_id
        and answers.language = gold.language
    left join norm_choices
        on answers.run_id = norm_choices.run_id
        and answers.task = norm_choices.task
        and answers.item_id = norm_choices.item_id
        and answers.language = norm_choices.language

)

select * from final
