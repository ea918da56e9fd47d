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

option_sets as (

    select
        option_sets.*,
        runs.revision_key,
        runs.variant = '{{ var("mcq_baseline_variant") }}' as is_baseline
    from ({{ mcq_option_item_sets(where='answers.run_id in (select run_id from runs)') }})
        as option_sets
    inner join runs on option_sets.run_id = runs.run_id

),

pairs as (

    -- every pair of options: each item a language answered in both runs is in exactly one,
    -- so their sum is the items paired, and the pairs of the same option those answered alike
    select
        compared.revision_key,
        compared.run_id,
        baseline.run_id as baseline_run_id,
        compared.task,
        compared.language,
        sum(bit_count(compared.items & baseline.items)) as n_paired,
        sum(case
            when compared.chosen_option = baseline.chosen_option
                then bit_count(compared.items & baseline.items)
            else 0
        end) as n_same_option
    from option_sets as compared
    inner join option_sets as baseline
        on compared.revision_key = baseline.revision_key
        and compared.task = baseline.task
        and compared.language = baseline.language
        and compared.chunk = baseline.chunk
    where baseline.is_baseline and not compared.is_baseline
    group by
        compared.revision_key, compared.run_id, baseline.run_id, compared.task, compared.language

),

final as (

    select
        revision_key,
        run_id,
        baseline_run_id,
        task,
        language,
        cast(n_paired as {{ dbt.type_bigint() }}) as n_paired,
        cast(n_same_option as {{ dbt.type_bigint() }}) as n_same_option
    from pairs
    where n_paired > 0

)

select * from final
