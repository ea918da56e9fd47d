{#- Per run, task and language, over the complete items (every one of the task's languages
    answered validly; int_mcq_items_classified): how often the language departs from the
    majority answer and how often it is the odd one out (the only departing language, with
    three languages or more). Any number of languages: one row per language, never a
    column. Read from the items, not the answers: a complete item has one valid answer in
    each of the run's languages, and its departing languages are listed on it. -#}
with items as (

    select * from {{ ref('int_mcq_items_classified') }}
    where disagreement_type <> 'incomplete'

),

run_languages as (select * from {{ ref('int_mcq_run_languages_answered') }}),

per_run as (

    select
        run_id,
        task,
        count(*) as n_items,
        count(*) filter (where disagreement_type = 'no_majority') as n_no_majority
    from items
    group by run_id, task

),

departing as (

    select
        run_id,
        task,
        disagreement_type,
        {{ split_to_rows('departing_languages', "','") }} as language
    from items
    where departing_languages is not null

),

departures as (

    select
        run_id,
        task,
        language,
        count(*) as n_departs,
        count(*) filter (where disagreement_type = 'one_diverged') as n_odd_one_out
    from departing
    group by run_id, task, language

),

final as (

    select
        run_languages.run_id,
        run_languages.task,
        run_languages.language,
        per_run.n_items,
        coalesce(departures.n_departs, 0) as n_departs,
        coalesce(departures.n_odd_one_out, 0) as n_odd_one_out,
        per_run.n_no_majority
    from run_languages
    inner join per_run
        on run_languages.run_id = per_run.run_id
        and run_languages.task = per_run.task
    left join departures
        on run_languages.run_id = departures.run_id
        and run_languages.task = departures.task
        and run_languages.language = departures.language

)

select * from final
