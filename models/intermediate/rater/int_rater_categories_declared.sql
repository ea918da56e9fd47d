{#- The possible categories K of every dataset: as declared in the rater_categories seed for
    user datasets; for a dataset derived from the cross-lingual study, its task's option keys
    (int_mcq_task_options_keyed: var mcq_options and what a harness's choices add). -#}
with user_categories as (select * from {{ ref('stg_rater__categories') }}),

answers as (

    select distinct task, model, variant, language
    from {{ ref('int_mcq_answers_normalised') }}
    where is_valid

),

derived_datasets as (

    -- the datasets int_rater_ratings_unioned derives, each with its task
    select {{ models_as_raters_dataset('task', 'variant', 'language') }} as dataset, task
    from answers
    union
    select {{ languages_as_raters_dataset('task', 'model', 'variant') }} as dataset, task
    from answers

),

derived_categories as (

    select
        derived_datasets.dataset,
        task_options.option_key as category
    from derived_datasets
    inner join {{ ref('int_mcq_task_options_keyed') }} as task_options
        on derived_datasets.task = task_options.task

),

categories as (

    select distinct dataset, category
    from user_categories
    union all
    select dataset, category
    from derived_categories

),

final as (

    select
        dataset,
        category,
        -- how the rating matrix codes the category (int_rater_items_coded); the Python
        -- model maps it to irrCAC's order, which needs each label's numeric value
        {{ position_from_zero('dataset', 'category') }} as category_position
    from categories

)

select * from final
