{#- One row per task, item and language that any source gives a gold: the item files (their
    gold_column) and every run whose records carry one (a sample log's target, a long file's
    gold column; docs/landing.md "Gold"). gold_option is the gold where every source gives
    the same; where two disagree it is null and gold_sources names each gold with a source
    that gives it, and a test (tests/dbt/mcq/assert_mcq_gold_sources_agree.sql) fails the
    build: which gold is right is not for the warehouse to decide. -#}
with items as (

    select * from {{ ref('stg_mcq__items') }}
    where gold is not null

),

answers as (

    select * from {{ ref('stg_mcq__answers') }}
    where gold_option is not null

),

given as (

    -- every option row of an item carries its gold: one per item file
    select distinct
        task,
        item_id,
        language,
        gold as gold_option,
        'item file ' || source_file as gold_source
    from items

    union all

    select
        task,
        item_id,
        language,
        gold_option,
        'run ' || run_id as gold_source
    from answers

),

per_gold as (

    select
        task,
        item_id,
        language,
        gold_option,
        min(gold_source) as gold_source,
        count(*) as n_sources
    from given
    group by task, item_id, language, gold_option

),

final as (

    select
        task,
        item_id,
        language,
        case when count(*) = 1 then min(gold_option) end as gold_option,
        count(*) as n_golds,
        sum(n_sources) as n_sources,
        {{ string_agg_ordered(
            "gold_option || ' (' || gold_source || ')'", "', '", 'gold_option') }}
            as gold_sources
    from per_gold
    group by task, item_id, language

)

select * from final
