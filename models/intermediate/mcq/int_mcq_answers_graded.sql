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
    inner join gold using (task, item_id, language)
    left join norm_choices using (run_id, task, item_id, language)

)

select * from final
