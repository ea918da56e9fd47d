{#- Per run, task and pair of languages, the contingency table of the options the two chose
    on the items both answered validly: the sufficient statistics of their agreement and
    Cohen's kappa (int_mcq_language_pairs_compared). Each language's items of each option are
    a set of bits (macros/cross_db/bits.sql), so a cell is a sum of popcounts over the run's
    chunks of 63 items (numbered within the task: mcq_item_numbers). Incremental by run: a
    run's tables depend on its answers alone, and its bits are only ever met by its own, so
    only the runs whose answers changed are counted again (macros/mcq_incremental_groups.sql). -#}
{{ config(**mcq_incremental_by_group(
    "ref('int_mcq_runs_versioned')",
    ['run_id'],
)) }}

with option_sets as (

    {{ mcq_option_item_sets(
        where=mcq_in_groups_to_compute(ref('int_mcq_runs_versioned'), ['run_id'])) }}

),

cells as (

    select
        a.run_id,
        a.task,
        a.language as language_a,
        b.language as language_b,
        a.chosen_option as option_a,
        b.chosen_option as option_b,
        sum(bit_count(a.items & b.items)) as n_items
    from option_sets as a
    inner join option_sets as b
        on a.run_id = b.run_id
        and a.task = b.task
        and a.chunk = b.chunk
        and a.language < b.language
    group by a.run_id, a.task, a.language, b.language, a.chosen_option, b.chosen_option

),

final as (

    select
        run_id,
        task,
        language_a,
        language_b,
        option_a,
        option_b,
        cast(n_items as {{ dbt.type_bigint() }}) as n_items
    from cells
    where n_items > 0

)

select * from final
