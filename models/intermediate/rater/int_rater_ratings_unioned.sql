{#- Every rating the rater measures see: the user datasets of the rater_ratings seed and two
    families of datasets derived from the cross-lingual study, where the category is the
    original option an answer points to (in base runs the presented letter):
      models_as_raters_<language>: the models' base-run answers to each item;
      languages_as_raters_<model slug>_<run>: one model's answers in each language.
    Invalid cross-lingual answers never enter. -#}
with user_ratings as (

    select * from {{ ref('stg_rater__ratings') }}

),

mcq_answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}

),

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
        {{ dbt.concat(["'models_as_raters_'", 'language']) }} as dataset,
        'models_as_raters' as dataset_kind,
        language,
        cast(null as {{ dbt.type_string() }}) as model,
        run,
        cast(item_id as {{ dbt.type_string() }}) as item_id,
        model as rater_id,
        original_option as category,
        source_file as source,
        cast(source_row as {{ dbt.type_bigint() }}) as source_row
    from valid_answers
    where run = 'base'

),

languages_as_raters as (

    select
        {{ dbt.concat(["'languages_as_raters_'", rater_slug('model'), "'_'", 'run']) }}
            as dataset,
        'languages_as_raters' as dataset_kind,
        cast(null as {{ dbt.type_string() }}) as language,
        model,
        run,
        cast(item_id as {{ dbt.type_string() }}) as item_id,
        language as rater_id,
        original_option as category,
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
