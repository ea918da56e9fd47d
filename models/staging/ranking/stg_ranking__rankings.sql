{#- One row per row of the rankings seed, keys trimmed (blank = null) and the position cast
    to an integer. The seed loads every column as text so that a malformed value reaches
    the quarantine with its row instead of failing the load; position_text keeps the value
    as written. source_row is the row's number in the seed (1 = first data row): DuckDB
    loads seeds in file order and the project sets preserve_insertion_order. -#}
with source as (select * from {{ ref('ranking_rankings') }}),

numbered as (

    select
        source.*,
        {{ load_order_row_number() }} as source_row
    from source

),

trimmed as (

    select
        source_row,
        nullif(trim(cast(rater_id as {{ dbt.type_string() }})), '') as rater_id,
        nullif(trim(cast(scenario_id as {{ dbt.type_string() }})), '') as scenario_id,
        nullif(trim(cast(position as {{ dbt.type_string() }})), '') as position_text,
        nullif(trim(cast(task_id as {{ dbt.type_string() }})), '') as task_id
    from numbered

),

cast_position as (

    {#- A plain integer cast would round '2.5' to 3: cast to a float first and keep only
        whole numbers. -#}
    select
        trimmed.*,
        {{ try_cast_double('position_text') }} as position_number
    from trimmed

),

final as (

    select
        cast(source_row as bigint) as source_row,
        rater_id,
        scenario_id,
        position_text,
        case
            when position_number = floor(position_number)
                then cast(position_number as integer)
        end as position,
        task_id
    from cast_position

)

select * from final
