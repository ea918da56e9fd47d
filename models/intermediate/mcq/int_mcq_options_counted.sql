{#- Valid answers per model, run, language and option letter, by the presented letter and
    by the original option it points to; every option is present, zero where unused. -#}
with answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}
    where is_valid

),

options as (

    {% for option in var('mcq_options') %}
    select '{{ option }}' as option
    {% if not loop.last %}
    union all
    {% endif %}
    {% endfor %}

),

cells as (

    select distinct model, run, language from {{ ref('int_mcq_answers_normalised') }}

),

grid as (

    select
        cells.model,
        cells.run,
        cells.language,
        options.option
    from cells
    cross join options

),

by_presented as (

    select model, run, language, answer as option, count(*) as n
    from answers
    group by model, run, language, answer

),

by_original as (

    select model, run, language, original_option as option, count(*) as n
    from answers
    group by model, run, language, original_option

),

counted as (

    select
        grid.model,
        grid.run,
        grid.language,
        grid.option,
        coalesce(by_presented.n, 0) as n_presented,
        coalesce(by_original.n, 0) as n_original
    from grid
    left join by_presented
        on grid.model = by_presented.model
        and grid.run = by_presented.run
        and grid.language = by_presented.language
        and grid.option = by_presented.option
    left join by_original
        on grid.model = by_original.model
        and grid.run = by_original.run
        and grid.language = by_original.language
        and grid.option = by_original.option

),

final as (

    select
        *,
        (sum(n_presented) over (partition by model, run, language))::bigint as n_valid
    from counted

)

select * from final
