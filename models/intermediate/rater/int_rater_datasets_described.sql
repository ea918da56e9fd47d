{#- One row per dataset: where it comes from and, for derived datasets, which language,
    model and run it holds, so that the generated name never has to be parsed. -#}
with ratings as (select * from {{ ref('int_rater_ratings_unioned') }}),

declared as (select * from {{ ref('int_rater_categories_declared') }}),

weightings as (select * from {{ ref('stg_rater__datasets') }}),

datasets as (

    select distinct
        dataset,
        dataset_kind,
        language,
        model,
        run
    from ratings
    where dataset is not null

),

declared_counts as (

    select
        dataset,
        count(*) as n_categories
    from declared
    group by dataset

),

final as (

    select
        datasets.dataset,
        datasets.dataset_kind,
        datasets.language,
        datasets.model,
        datasets.run,
        coalesce(declared_counts.n_categories, 0) as n_categories,
        -- derived datasets rate the options A-D, which have no order: always nominal
        case
            when datasets.dataset_kind = 'seed' then coalesce(weightings.weights, 'identity')
            else 'identity'
        end as weights
    from datasets
    left join declared_counts
        on datasets.dataset = declared_counts.dataset
    left join weightings
        on datasets.dataset = weightings.dataset

)

select * from final
