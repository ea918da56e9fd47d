{#- Each run of a model revision beside the same revision's baseline run
    (mcq_baseline_variant): per task and language, the items answered validly in both runs
    and how many of them point to the same option in both. Each run's items in a language,
    valid and on each option, are sets of bits (macros/cross_db/bits.sql, numbered within the
    task: mcq_item_numbers), so a pair of runs is counted on one row per chunk of 63 items,
    not joined answer by answer. Incremental by model revision (a row pairs two of its
    runs): only the revisions whose answers changed are paired again
    (macros/mcq_incremental_groups.sql). -#}
{{ config(**mcq_incremental_by_group(
    "ref('int_mcq_runs_versioned')",
    ['revision_key'],
)) }}

with runs as (

    select * from {{ ref('int_mcq_runs_versioned') }}
    where {{ mcq_in_groups_to_compute(ref('int_mcq_runs_versioned'), ['revision_key']) }}

),

item_numbers as (

    {{ mcq_item_numbers() }}

),

option_sets as (

    select
        answers.run_id,
        runs.revision_key,
        runs.variant = '{{ var("mcq_baseline_variant") }}' as is_baseline,
        answers.task,
        answers.language,
        {{ item_chunk('item_numbers.item_no') }} as chunk,
        answers.chosen_option,
        bit_or({{ item_bit('item_numbers.item_no') }}) as items
    from {{ ref('int_mcq_answers_normalised') }} as answers
    inner join runs on answers.run_id = runs.run_id
    inner join item_numbers
        on answers.task = item_numbers.task and answers.item_id = item_numbers.item_id
    where answers.is_valid
    group by
        answers.run_id, runs.revision_key, runs.variant, answers.task, answers.language,
        {{ item_chunk('item_numbers.item_no') }}, answers.chosen_option

),

valid_sets as (

    -- a run's valid items in a language: the union of its options' sets
    select run_id, revision_key, is_baseline, task, language, chunk, bit_or(items) as items
    from option_sets
    group by run_id, revision_key, is_baseline, task, language, chunk

),

paired as (

    select
        compared.revision_key,
        compared.run_id,
        baseline.run_id as baseline_run_id,
        compared.task,
        compared.language,
        sum(bit_count(compared.items & baseline.items)) as n_paired
    from valid_sets as compared
    inner join valid_sets as baseline
        on compared.revision_key = baseline.revision_key
        and compared.task = baseline.task
        and compared.language = baseline.language
        and compared.chunk = baseline.chunk
    where baseline.is_baseline and not compared.is_baseline
    group by
        compared.revision_key, compared.run_id, baseline.run_id, compared.task, compared.language

),

same_option as (

    select
        compared.run_id,
        baseline.run_id as baseline_run_id,
        compared.task,
        compared.language,
        sum(bit_count(compared.items & baseline.items)) as n_same_option
    from option_sets as compared
    inner join option_sets as baseline
        on compared.revision_key = baseline.revision_key
        and compared.task = baseline.task
        and compared.language = baseline.language
        and compared.chunk = baseline.chunk
        and compared.chosen_option = baseline.chosen_option
    where baseline.is_baseline and not compared.is_baseline
    group by compared.run_id, baseline.run_id, compared.task, compared.language

),

final as (

    select
        paired.revision_key,
        paired.run_id,
        paired.baseline_run_id,
        paired.task,
        paired.language,
        cast(paired.n_paired as {{ dbt.type_bigint() }}) as n_paired,
        cast(coalesce(same_option.n_same_option, 0) as {{ dbt.type_bigint() }})
            as n_same_option
    from paired
    left join same_option
        on paired.run_id = same_option.run_id
        and paired.baseline_run_id = same_option.baseline_run_id
        and paired.task = same_option.task
        and paired.language = same_option.language
    where paired.n_paired > 0

)

select * from final
