{#- Two runs of one task and variant against gold on the same items: per unordered pair of
    runs (run_id_a < run_id_b) and language, the items with a gold both answered (validly
    or not: an invalid answer is wrong), counted by which of the two answered correctly.
    The 2 × 2 table is all that mcq_model_accuracy_comparison's figures depend on. -#}
with graded as (select * from {{ ref('int_mcq_answers_graded') }}),

final as (

    {{ mcq_run_pairs_2x2('graded', 'is_correct', by=['language']) }}

)

select * from final
