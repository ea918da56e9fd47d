{#- One row per row of the rankings file, keys trimmed (blank = null) and the position cast
    to an integer. The file lands every column as text so that a malformed value reaches
    the quarantine with its row instead of refusing the file; position_text keeps the value
    as written. source_row is the row's number in the file (1 = first data row), as landed. -#}
with source as (
    {{ read_landed_seed('ranking_seeds', 'ranking_rankings') }}
),

trimmed as (

    select
        source_row,
        content_hash,
        nullif(trim(rater_id), '') as rater_id,
        nullif(trim(scenario_id), '') as scenario_id,
        nullif(trim(position), '') as position_text,
        nullif(trim(task_id), '') as task_id
    from source

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
        task_id,
        content_hash
    from cast_position

)

select * from final
