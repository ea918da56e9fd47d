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

{%- set options = mcq_option_keys(sorted=true) -%}

with run_languages as (

    select run_id, task, count(*) as n_languages
    from {{ ref('int_mcq_run_languages_answered') }}
    group by run_id, task

),

answered as (

    -- the one pass over the answers, one aggregation by item: its valid languages, how many
    -- chose each option key (mcq_option_keys: every valid answer is one, tested by
    -- assert_mcq_chosen_options_are_task_options), and each valid answer as its language and
    -- option, for the departing languages. Grouped by the item's key alone: the run's
    -- model, revision and variant join at the end, on one row per item. (Counting by
    -- option first, then by item, and reading the answers again for the departing
    -- languages, took 14.0 s at 10^7 answers against 8.5 s.)
    select
        run_id,
        task,
        item_id,
        -- the languages of an item share one domain (checked by the reader)
        max(domain) as domain,
        count(chosen_option) as n_valid,
        {%- for option in options %}
        count(*) filter (where chosen_option = {{ dbt.string_literal(option) }})
            as n_option_{{ loop.index }},
        {%- endfor %}
        {{ answers_as_text('language', 'chosen_option') }} as valid_answers
    from {{ ref('int_mcq_answers_normalised') }}
    where {{ mcq_in_groups_to_compute(ref('int_mcq_runs_versioned'), ['run_id']) }}
    group by run_id, task, item_id

),

items as (

    -- the option held by more than half of the run's languages (at most one can be), and
    -- the agreeing pairs of languages
    select
        answered.run_id,
        answered.task,
        answered.item_id,
        answered.domain,
        run_languages.n_languages,
        cast(answered.n_valid as {{ dbt.type_bigint() }}) as n_valid,
        case
            {%- for option in options %}
            when 2 * answered.n_option_{{ loop.index }} > run_languages.n_languages
                then {{ dbt.string_literal(option) }}
            {%- endfor %}
        end as leading_option,
        case
            {%- for option in options %}
            when 2 * answered.n_option_{{ loop.index }} > run_languages.n_languages
                then answered.n_option_{{ loop.index }}
            {%- endfor %}
        end as n_leading,
        cast(
            {%- for option in options %}
            answered.n_option_{{ loop.index }} * (answered.n_option_{{ loop.index }} - 1) / 2
            {{- ' +' if not loop.last }}
            {%- endfor %}
            as {{ dbt.type_bigint() }}
        ) as n_agreeing_pairs,
        -- the pattern of the item's valid answers: its count on each option, in the order of
        -- mcq_option_keys (int_mcq_option_patterns_counted), without trailing zeros: the
        -- same text whether or not a later task added keys
        regexp_replace({{ dbt.concat(option_counts_parts(options)) }}, '(,0)+$', '')
            as option_counts,
        answered.valid_answers
    from answered
    inner join run_languages
        on answered.run_id = run_languages.run_id
        and answered.task = run_languages.task

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
        -- the languages departing from the majority of a complete item, in order
        case
            when items.n_valid = items.n_languages and items.n_leading < items.n_languages
                then {{ answers_departing('items.valid_answers', 'items.leading_option') }}
        end as departing_languages
    from items

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
        classified.n_agreeing_pairs,
        classified.option_counts
    from classified
    inner join {{ ref('int_mcq_runs_versioned') }} as runs
        on classified.run_id = runs.run_id

)

select * from final
