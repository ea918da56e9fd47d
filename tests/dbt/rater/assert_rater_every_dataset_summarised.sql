{#- Every dataset with a valid rating has a summary row, and the derived families are
    complete: one models_as_raters dataset per language, one languages_as_raters dataset
    per model and run of the cross-lingual study. -#}
with validated as (

    select distinct dataset from {{ ref('int_rater_ratings_validated') }}

),

summary as (

    select * from {{ ref('rater_agreement_summary') }}

),

answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}

),

expected_derived as (

    select distinct
        'models_as_raters' as dataset_kind,
        language,
        cast(null as {{ dbt.type_string() }}) as model,
        run
    from answers
    where run = 'base' and is_valid
    union all
    select distinct
        'languages_as_raters' as dataset_kind,
        cast(null as {{ dbt.type_string() }}) as language,
        model,
        run
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

    select
        coalesce(expected_derived.language, expected_derived.model) as dataset,
        'derived dataset missing' as problem
    from expected_derived
    left join summary
        on expected_derived.dataset_kind = summary.dataset_kind
        and expected_derived.run = summary.run
        and coalesce(expected_derived.language, '') = coalesce(summary.language, '')
        and coalesce(expected_derived.model, '') = coalesce(summary.model, '')
    where summary.dataset is null

)

select * from missing_datasets
union all
select * from missing_derived
