{#- Each task's option keys, one row per task and key, in key order: the declared options
    (var mcq_options), then as many more keys as the most choices its sample logs scored
    need (a harness's task may have 2 to 26 choices: the reader keys the choices beyond the
    declared ones with the letters A to Z not among them, in order: mcq_option_sequence). A
    key's option_position is where a run that keeps the key order shows it. The options of
    a task for its counts (int_mcq_options_counted) and for the datasets derived from it
    (int_rater_categories_declared). -#}
with tasks as (

    select distinct task from {{ ref('stg_mcq__answers') }}
    union
    select distinct task from {{ ref('stg_mcq__items') }}

),

scored as (

    select task, max(presented_position) as n_choices
    from {{ ref('stg_mcq__option_scores') }}
    group by task

),

key_sequence as (

    {% for key in mcq_option_sequence() %}
    select {{ dbt.string_literal(key) }} as option_key, {{ loop.index }} as option_position
    {{- ' union all' if not loop.last }}
    {% endfor %}

),

final as (

    select tasks.task, key_sequence.option_key, key_sequence.option_position
    from tasks
    left join scored on tasks.task = scored.task
    cross join key_sequence
    where key_sequence.option_position
        <= greatest({{ var('mcq_options') | length }}, coalesce(scored.n_choices, 0))

)

select * from final
