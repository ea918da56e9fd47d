{#- One row per run, task, item and language: the option each language chose (the item's own
    key), where it was shown, and whether it departs from the item's majority. The long
    form every per-language query starts from. A view on DuckDB: the answers are held once,
    in int_mcq_answers_normalised, and this fact reads them with their item's majority;
    publish writes it as a table with the contract's columns (concord_io/serving/publish.py). Its
    key is the normalised answers' (one item per key in int_mcq_items_classified). -#}
{{ config(materialized='view' if target.type == 'duckdb' else 'table') }}

with answers as (select * from {{ ref('int_mcq_answers_normalised') }}),

items as (

    select run_id, task, item_id, disagreement_type, majority_option
    from {{ ref('int_mcq_items_classified') }}

),

departing as (

    select
        answers.*,
        case
            when items.disagreement_type <> 'incomplete' then coalesce(
                items.majority_option is not null
                and answers.chosen_option <> items.majority_option, false
            )
        end as departs
    from answers
    inner join items
        on answers.run_id = items.run_id
        and answers.task = items.task
        and answers.item_id = items.item_id

),

final as (

    select {{ contract_columns('departing') }}
    from departing

)

select * from final
