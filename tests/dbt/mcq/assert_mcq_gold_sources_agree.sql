{#- Fails, one row per task, item and language, when two sources (item files, runs) give the
    item different golds: int_mcq_golds_gathered leaves its gold null, and every figure
    against gold would be wrong for one of them. The row names the item and each gold with a source that
    gives it; correct the source that is wrong (or the item ids that pair two items). -#}
with gold as (select * from {{ ref('int_mcq_golds_gathered') }}),

final as (

    select
        task,
        item_id,
        language,
        gold_sources,
        'task ' || task || ', item ' || item_id || ' (' || language
            || '): the sources give different golds: ' || gold_sources as problem
    from gold
    where n_golds > 1

)

select * from final
