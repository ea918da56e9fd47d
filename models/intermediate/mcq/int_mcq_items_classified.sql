{#- One row per run, task and item: how many of the run's languages (int_mcq_run_languages_answered:
    its task's languages in which it has an answer) answered it validly, the
    option held by more than half of them (the majority), the languages departing from it,
    and the disagreement type (docs/formulas.md): full_agreement, one_diverged (n ≥ 3 and
    n − 1 agree), majority (a majority and at least two departing), no_majority, or
    incomplete (a language without a valid answer). Any number of languages and options: one
    row per item, never a column per language. Incremental by run: only the runs whose
    answers changed are classified again (macros/mcq_incremental_groups.sql). -#}
{{ config(**mcq_incremental_by_group(
    "ref('int_mcq_runs_versioned')",
    ['run_id'],
)) }}

with run_languages as (

    select run_id, task, count(*) as n_languages
    from {{ ref('int_mcq_run_languages_answered') }}
    group by run_id, task

),

option_counts as (

    -- the one pass over the answers: per item, how many of its languages chose each option
    -- (chosen_option null: the answers that are not an option). Grouped by the item's key
    -- alone: the run's model, revision and variant join at the end, on one row per item
    -- (carried through the two aggregations they made them about 2x slower at 10^7 answers)
    select
        run_id,
        task,
        item_id,
        chosen_option,
        -- the languages of an item share one domain (checked by the reader)
        max(domain) as domain,
        count(*) as n_choosing
    from {{ ref('int_mcq_answers_normalised') }}
    where {{ mcq_in_groups_to_compute(ref('int_mcq_runs_versioned'), ['run_id']) }}
    group by run_id, task, item_id, chosen_option

),

items as (

    -- one aggregation of the counts: the valid languages, the option held by more than half
    -- of the run's languages (at most one can be), and the agreeing pairs of languages
    select
        option_counts.run_id,
        option_counts.task,
        option_counts.item_id,
        max(option_counts.domain) as domain,
        max(run_languages.n_languages) as n_languages,
        cast(coalesce(
            sum(option_counts.n_choosing) filter (where option_counts.chosen_option is not null),
            0
        ) as {{ dbt.type_bigint() }}) as n_valid,
        max(option_counts.chosen_option) filter (
            where option_counts.chosen_option is not null
                and 2 * option_counts.n_choosing > run_languages.n_languages
        ) as leading_option,
        max(option_counts.n_choosing) filter (
            where option_counts.chosen_option is not null
                and 2 * option_counts.n_choosing > run_languages.n_languages
        ) as n_leading,
        cast(coalesce(sum(
            cast(option_counts.n_choosing * (option_counts.n_choosing - 1) / 2
                as {{ dbt.type_bigint() }})
        ) filter (where option_counts.chosen_option is not null), 0)
            as {{ dbt.type_bigint() }}) as n_agreeing_pairs
    from option_counts
    inner join run_languages
        on option_counts.run_id = run_languages.run_id
        and option_counts.task = run_languages.task
    group by option_counts.run_id, option_counts.task, option_counts.item_id

),

departures as (

    -- the answers read again (not a shared CTE: a CTE read twice is materialised, a copy of
    -- every answer), joined only to the complete items some language departs on
    select
        answers.run_id,
        answers.task,
        answers.item_id,
        {{ string_agg_ordered('answers.language', "','", 'answers.language') }}
            as departing_languages
    from {{ ref('int_mcq_answers_normalised') }} as answers
    inner join items
        on answers.run_id = items.run_id
        and answers.task = items.task
        and answers.item_id = items.item_id
    where items.n_valid = items.n_languages
        and items.n_leading < items.n_languages
        and answers.is_valid
        and answers.chosen_option <> items.leading_option
    group by answers.run_id, answers.task, answers.item_id

),

classified as (

    select
        items.*,
        -- the majority is defined on a complete item only
        case when items.n_valid = items.n_languages then items.leading_option end
            as majority_option,
        case when items.n_valid = items.n_languages then items.n_leading end as n_majority,
        case
            when items.n_valid < items.n_languages then 'incomplete'
            when items.n_leading = items.n_languages then 'full_agreement'
            when items.n_leading = items.n_languages - 1 and items.n_languages >= 3
                then 'one_diverged'
            when items.n_leading is not null then 'majority'
            else 'no_majority'
        end as disagreement_type,
        departures.departing_languages
    from items
    left join departures
        on items.run_id = departures.run_id
        and items.task = departures.task
        and items.item_id = departures.item_id

),

final as (

    select
        classified.run_id,
        runs.model,
        runs.model_revision,
        runs.variant,
        classified.task,
        classified.item_id,
        classified.domain,
        classified.n_languages,
        classified.n_valid,
        classified.majority_option,
        classified.n_majority,
        case
            when classified.disagreement_type <> 'incomplete'
                then classified.disagreement_type = 'full_agreement'
        end as full_agreement,
        classified.disagreement_type,
        classified.departing_languages,
        classified.n_agreeing_pairs
    from classified
    inner join {{ ref('int_mcq_runs_versioned') }} as runs
        on classified.run_id = runs.run_id

)

select * from final
