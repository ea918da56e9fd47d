{#- Each task's option keys, one row per task and key, in key order: the declared options
    (var mcq_options), then as many more keys as the most choices an answer of its sample
    logs was presented with needs (a harness's task may have 2 to 26 choices: the reader keys the choices beyond the
    declared ones with the letters A to Z not among them, in order: mcq_option_sequence). A
    key's option_position is where a run that keeps the key order shows it. The options of
    a task for its counts (int_mcq_options_counted) and for the datasets derived from it
    (int_rater_categories_declared). -#}
with tasks as (

    -- every task answered, with the most choices an answer of it was presented with (a
    -- record that cannot be an answer, of more than 26 choices, adds no key)
    select task, max(n_choices) as n_choices
    from {{ ref('stg_mcq__answers') }}
    where {{ mcq_is_answer('invalid_reason') }}
    group by task
    union all
    select distinct task, null as n_choices from {{ ref('stg_mcq__items') }}

),

key_sequence as (

    {% for key in mcq_option_sequence() %}
    select {{ dbt.string_literal(key) }} as option_key, {{ loop.index }} as option_position
    {{- ' union all' if not loop.last }}
    {% endfor %}

),

final as (

    select per_task.task, key_sequence.option_key, key_sequence.option_position
    from (
        select task, max(n_choices) as n_choices from tasks group by task
    ) as per_task
    cross join key_sequence
    where key_sequence.option_position
        <= greatest({{ var('mcq_options') | length }}, coalesce(per_task.n_choices, 0))

)

select * from final
