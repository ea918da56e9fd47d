{#- Two runs of one task and variant on the same items: per unordered pair of runs
    (run_id_a < run_id_b), the languages both runs have (n_languages: a run is never
    measured in a language only the other has) and the items both answered completely in
    them, counted by whether each answered alike in all of them. The 2 × 2 table is all that
    mcq_model_comparison's figures depend on (its difference, its bootstrap, the McNemar
    test), so no per-item row leaves this model. Two runs with the same languages (the rule)
    are compared on their classified items; two runs whose languages differ, on their
    answers in the languages they share. -#}
with run_languages as (select * from {{ ref('int_mcq_run_languages_answered') }}),

runs as (select run_id, variant from {{ ref('int_mcq_runs_versioned') }}),

language_sets as (

    select
        run_languages.run_id,
        run_languages.task,
        runs.variant,
        count(*) as n_languages,
        {{ string_agg_ordered('run_languages.language', "','", 'run_languages.language') }}
            as languages
    from run_languages
    inner join runs on run_languages.run_id = runs.run_id
    group by run_languages.run_id, run_languages.task, runs.variant

),

-- runs with the same languages: their complete items and the items they answered alike in
-- every language, as sets of bits (macros/cross_db/bits.sql) over the items numbered within
-- the task; a pair of runs is then counted on one row per chunk of 63 items, not one per
-- item (at 40 runs a pair of rows for each of 31.7 M items at 10^7 answers)
item_numbers as (

    {{ mcq_item_numbers() }}

),

item_sets as (

    select
        items.run_id,
        items.task,
        {{ item_chunk('item_numbers.item_no') }} as chunk,
        bit_or({{ item_bit('item_numbers.item_no') }}) as complete_items,
        bit_or(
            case when items.full_agreement then {{ item_bit('item_numbers.item_no') }} else 0 end
        ) as agreeing_items
    from {{ ref('int_mcq_items_classified') }} as items
    inner join item_numbers
        on items.task = item_numbers.task and items.item_id = item_numbers.item_id
    where items.disagreement_type <> 'incomplete'
    group by items.run_id, items.task, {{ item_chunk('item_numbers.item_no') }}

),

same_languages as (

    -- agreeing items are complete items, so complete_items - agreeing_items holds the
    -- complete items answered differently somewhere (the bits of the one not in the other)
    select
        a.task,
        set_a.variant,
        a.run_id as run_id_a,
        b.run_id as run_id_b,
        max(set_a.n_languages) as n_set,
        {%- for name, a, b in [
            ('n_items', 'a.complete_items', 'b.complete_items'),
            ('n_both', 'a.agreeing_items', 'b.agreeing_items'),
            ('n_only_a', 'a.agreeing_items', '(b.complete_items - b.agreeing_items)'),
            ('n_only_b', 'b.agreeing_items', '(a.complete_items - a.agreeing_items)'),
        ] %}
        cast(sum(bit_count({{ a }} & {{ b }})) as {{ dbt.type_bigint() }}) as {{ name }}
        {{- ',' if not loop.last }}
        {%- endfor %}
    from item_sets as a
    inner join language_sets as set_a
        on a.run_id = set_a.run_id and a.task = set_a.task
    inner join language_sets as set_b
        on set_a.task = set_b.task
        and set_a.variant = set_b.variant
        and set_a.languages = set_b.languages
        and set_a.run_id < set_b.run_id
    inner join item_sets as b
        on b.run_id = set_b.run_id
        and b.task = set_b.task
        and a.chunk = b.chunk
    group by a.task, set_a.variant, a.run_id, b.run_id
    having sum(bit_count(a.complete_items & b.complete_items)) > 0

),

-- runs whose languages differ: each one's answers in the languages both have
pairs as (

    select
        a.task,
        a.variant,
        a.run_id as run_id_a,
        b.run_id as run_id_b
    from language_sets as a
    inner join language_sets as b
        on a.task = b.task
        and a.variant = b.variant
        and a.run_id < b.run_id
        and a.languages <> b.languages

),

shared as (

    select pairs.*, a.language
    from pairs
    inner join run_languages as a
        on pairs.run_id_a = a.run_id and pairs.task = a.task
    inner join run_languages as b
        on pairs.run_id_b = b.run_id and pairs.task = b.task and a.language = b.language

),

shared_counted as (

    select task, variant, run_id_a, run_id_b, count(*) as n_languages
    from shared
    group by task, variant, run_id_a, run_id_b

),

answers as (

    select run_id, task, item_id, language, chosen_option
    from {{ ref('int_mcq_answers_normalised') }}
    where
        run_id in (select run_id_a from pairs)
        or run_id in (select run_id_b from pairs)

),

{% for side in ['a', 'b'] %}
side_{{ side }} as (

    -- an item complete in the shared languages, and whether it is answered alike in them
    select
        shared.task,
        shared.variant,
        shared.run_id_a,
        shared.run_id_b,
        answers.item_id,
        count(distinct answers.chosen_option) = 1 as full_agreement
    from shared
    inner join answers
        on answers.run_id = shared.run_id_{{ side }}
        and answers.task = shared.task
        and answers.language = shared.language
    inner join shared_counted
        on shared.task = shared_counted.task
        and shared.variant = shared_counted.variant
        and shared.run_id_a = shared_counted.run_id_a
        and shared.run_id_b = shared_counted.run_id_b
    group by
        shared.task, shared.variant, shared.run_id_a, shared.run_id_b, answers.item_id
    having count(answers.chosen_option) = max(shared_counted.n_languages)

),
{% endfor %}

other_languages as (

    select
        side_a.task,
        side_a.variant,
        side_a.run_id_a,
        side_a.run_id_b,
        max(shared_counted.n_languages) as n_languages,
        count(*) as n_items,
        count(*) filter (where side_a.full_agreement and side_b.full_agreement) as n_both,
        count(*) filter (where side_a.full_agreement and not side_b.full_agreement)
            as n_only_a,
        count(*) filter (where side_b.full_agreement and not side_a.full_agreement)
            as n_only_b
    from side_a
    inner join side_b using (task, variant, run_id_a, run_id_b, item_id)
    inner join shared_counted using (task, variant, run_id_a, run_id_b)
    group by side_a.task, side_a.variant, side_a.run_id_a, side_a.run_id_b

),

final as (

    select
        task, variant, run_id_a, run_id_b, n_set as n_languages,
        n_items, n_both, n_only_a, n_only_b
    from same_languages

    union all

    select
        task, variant, run_id_a, run_id_b, n_languages,
        n_items, n_both, n_only_a, n_only_b
    from other_languages

)

select * from final
