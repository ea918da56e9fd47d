{#- Every input record that was set aside instead of counted, from every study, with where
    it came from and why. Rows in = rows counted + rows here. -#}
{% set quarantines = [
    ('mcq', 'int_mcq_answers_quarantined'),
    ('probe', 'int_probe_runs_quarantined'),
    ('ranking', 'int_ranking_rankings_quarantined'),
    ('rater', 'int_rater_ratings_quarantined'),
] %}

with unioned as (

    {% for study, model_name in quarantines %}
    select
        '{{ study }}' as study,
        source,
        source_row,
        record_key,
        column_name,
        value,
        reason
    from {{ ref(model_name) }}
    {% if not loop.last %}union all{% endif %}
    {% endfor %}

),

numbered as (

    -- a key BI tools can join on (source_row is null where an input has no row order): the
    -- row's place in a fixed order, the same on every build of the same inputs
    select
        *,
        row_number() over (
            order by study, source, source_row nulls first, record_key, column_name
        ) as quarantine_id
    from unioned

),

final as (

    select {{ contract_columns('numbered') }}
    from numbered

)

select * from final
