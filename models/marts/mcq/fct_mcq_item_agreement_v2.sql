{#- One row per run, task and item: its disagreement type over the task's languages. A view
    on DuckDB of the contract's columns of int_mcq_items_classified, which holds the items
    once (publish writes it as a table, concord_io/serving/publish.py); its key is that model's. -#}
{{ config(materialized='view' if target.type == 'duckdb' else 'table') }}

with items as (select * from {{ ref('int_mcq_items_classified') }}),

final as (

    select {{ contract_columns('items') }}
    from items

)

select * from final
