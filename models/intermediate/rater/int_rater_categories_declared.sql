{#- The possible categories K of every dataset: as declared in the rater_categories seed for
    user datasets, var('mcq_options') for the datasets derived from the cross-lingual study. -#}
with user_categories as (select * from {{ ref('stg_rater__categories') }}),

ratings as (select * from {{ ref('int_rater_ratings_unioned') }}),

derived_datasets as (

    select distinct dataset
    from ratings
    where dataset_kind <> 'seed'

),

mcq_options as (

    {% for option in var('mcq_options') -%}
    select '{{ option }}' as category
    {% if not loop.last %}union all
    {% endif -%}
    {%- endfor %}

),

derived_categories as (

    select
        derived_datasets.dataset,
        mcq_options.category
    from derived_datasets
    cross join mcq_options

),

final as (

    select distinct dataset, category
    from user_categories
    union all
    select dataset, category
    from derived_categories

)

select * from final
