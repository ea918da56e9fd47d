{#- Within each group, positions are exactly 1..k for the group's k rows (no repeat, no gap,
    no null) and, when item_column is given, the k items are distinct: each group is a
    permutation (e.g. a consensus order of a scenario's tasks). -#}
{% test is_permutation(model, group_by, position_column, item_column=none) %}
with groups as (

    select
        {{ group_by | join(', ') }},
        count(*) as n_rows,
        count(distinct {{ position_column }}) as n_positions,
        min({{ position_column }}) as min_position,
        max({{ position_column }}) as max_position
        {%- if item_column %},
        count(distinct {{ item_column }}) as n_items
        {%- endif %}
    from {{ model }}
    group by {{ group_by | join(', ') }}

)

select * from groups
where n_positions <> n_rows
    or min_position <> 1
    or max_position <> n_rows
    {%- if item_column %}
    or n_items <> n_rows
    {%- endif %}
{% endtest %}
