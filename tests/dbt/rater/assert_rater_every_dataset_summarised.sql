{#- Every dataset with a valid rating has a summary row, and the derived families are
    complete: one models_as_raters dataset per task, variant and language, one
    languages_as_raters dataset per task, model and variant of the cross-lingual study. -#}
with validated as (

    select distinct dataset from {{ ref('int_rater_ratings_validated') }}

),

summary as (select * from {{ ref('rater_agreement_summary') }}),

answers as (select * from {{ ref('int_mcq_answers_normalised') }}),

expected_derived as (

    select distinct {{ models_as_raters_dataset('task', 'variant', 'language') }} as dataset
    from answers
    where is_valid
    union all
    select distinct {{ languages_as_raters_dataset('task', 'model', 'variant') }} as dataset
    from answers
    where is_valid

),

missing_datasets as (

    select validated.dataset, 'no summary row' as problem
    from validated
    left join summary on validated.dataset = summary.dataset
    where summary.dataset is null

),

missing_derived as (

    select expected_derived.dataset, 'derived dataset missing' as problem
    from expected_derived
    left join summary on expected_derived.dataset = summary.dataset
    where summary.dataset is null

)

select * from missing_datasets
union all
select * from missing_derived
