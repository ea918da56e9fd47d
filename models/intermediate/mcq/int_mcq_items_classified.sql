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

with answers as (

    select * from {{ ref('int_mcq_answers_normalised') }}
    where {{ mcq_in_groups_to_compute(ref('int_mcq_runs_versioned'), ['run_id']) }}

),

run_languages as (

    select run_id, task, count(*) as n_languages
    from {{ ref('int_mcq_run_languages_answered') }}
    group by run_id, task

),

option_counts as (

    -- the one pass over the answers: per item, how many of its languages chose each option
    -- (chosen_option null: the answers that are not an option); everything below reads
    -- these counts, at most one row per item and option
    select
        run_id,
        model,
        model_revision,
        variant,
        task,
        item_id,
        chosen_option,
        -- the languages of an item share one domain (checked by the reader)
        max(domain) as domain,
        count(*) as n_choosing
    from answers
    group by run_id, model, model_revision, variant, task, item_id, chosen_option

),

items as (

    select
        option_counts.run_id,
        option_counts.model,
        option_counts.model_revision,
        option_counts.variant,
        option_counts.task,
        option_counts.item_id,
        max(option_counts.domain) as domain,
        max(run_languages.n_languages) as n_languages,
        cast(coalesce(
            sum(option_counts.n_choosing) filter (where option_counts.chosen_option is not null),
            0
        ) as {{ dbt.type_bigint() }}) as n_valid
    from option_counts
    inner join run_languages
        on option_counts.run_id = run_languages.run_id
        and option_counts.task = run_languages.task
    group by
        option_counts.run_id, option_counts.model, option_counts.model_revision,
        option_counts.variant, option_counts.task, option_counts.item_id

),

majorities as (

    -- on a complete item at most one option is held by more than half of the languages
    select
        option_counts.run_id,
        option_counts.task,
        option_counts.item_id,
        option_counts.chosen_option as majority_option,
        option_counts.n_choosing as n_majority
    from option_counts
    inner join items using (run_id, task, item_id)
    where option_counts.chosen_option is not null
        and items.n_valid = items.n_languages
        and 2 * option_counts.n_choosing > items.n_languages

),

departures as (

    -- the answers read again, not from the CTE above: a CTE read twice is materialised,
    -- a copy of every answer; majorities holds only the runs computed here
    select
        answers.run_id,
        answers.task,
        answers.item_id,
        {{ string_agg_ordered('answers.language', "','", 'answers.language') }}
            as departing_languages
    from {{ ref('int_mcq_answers_normalised') }} as answers
    inner join majorities
        on answers.run_id = majorities.run_id
        and answers.task = majorities.task
        and answers.item_id = majorities.item_id
    where answers.is_valid and answers.chosen_option <> majorities.majority_option
    group by answers.run_id, answers.task, answers.item_id

),

classified as (

    select
        items.*,
        majorities.majority_option,
        majorities.n_majority,
        case
            when items.n_valid < items.n_languages then 'incomplete'
            when majorities.n_majority = items.n_languages then 'full_agreement'
            when majorities.n_majority = items.n_languages - 1 and items.n_languages >= 3
                then 'one_diverged'
            when majorities.n_majority is not null then 'majority'
            else 'no_majority'
        end as disagreement_type,
        departures.departing_languages
    from items
    left join majorities using (run_id, task, item_id)
    left join departures using (run_id, task, item_id)

),

final as (

    select
        run_id,
        model,
        model_revision,
        variant,
        task,
        item_id,
        domain,
        n_languages,
        n_valid,
        majority_option,
        n_majority,
        case
            when disagreement_type <> 'incomplete' then disagreement_type = 'full_agreement'
        end as full_agreement,
        disagreement_type,
        departing_languages
    from classified

)

select * from final
