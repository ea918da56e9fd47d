{#- Every rating the rater measures see: the user datasets of the rater_ratings seed and two
    families of datasets derived from the cross-lingual study, where the category is the
    item's own option key an answer points to (names: macros/rater_measures.sql):
      models_as_raters_…: per task, variant and language, the models' answers to each item;
      languages_as_raters_…: per run and task, one model's answers in each language.
    Invalid cross-lingual answers never enter. -#}
with user_ratings as (select * from {{ ref('stg_rater__ratings') }}),

mcq_answers as (select * from {{ ref('int_mcq_answers_normalised') }}),

valid_answers as (

    select * from mcq_answers
    where is_valid

),

seed_datasets as (

    select
        dataset,
        'seed' as dataset_kind,
        cast(null as {{ dbt.type_string() }}) as language,
        cast(null as {{ dbt.type_string() }}) as model,
        cast(null as {{ dbt.type_string() }}) as run,
        item_id,
        rater_id,
        category,
        'rater_ratings' as source,
        cast(source_row as {{ dbt.type_bigint() }}) as source_row
    from user_ratings

),

models_as_raters as (

    select
        {{ models_as_raters_dataset('task', 'variant', 'language') }} as dataset,
        'models_as_raters' as dataset_kind,
        language,
        cast(null as {{ dbt.type_string() }}) as model,
        variant as run,
        item_id,
        model as rater_id,
        chosen_option as category,
        source_file as source,
        cast(source_row as {{ dbt.type_bigint() }}) as source_row
    from valid_answers

),

languages_as_raters as (

    select
        {{ languages_as_raters_dataset('task', 'model', 'variant') }} as dataset,
        'languages_as_raters' as dataset_kind,
        cast(null as {{ dbt.type_string() }}) as language,
        model,
        variant as run,
        item_id,
        language as rater_id,
        chosen_option as category,
        source_file as source,
        cast(source_row as {{ dbt.type_bigint() }}) as source_row
    from valid_answers

),

unioned as (

    select * from seed_datasets
    union all
    select * from models_as_raters
    union all
    select * from languages_as_raters

)

select * from unioned
