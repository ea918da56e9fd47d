{#- Which inputs of this warehouse are Concord's shipped demo data, recognised by content
    (the sha256 of the file, macros/shipped_inputs.sql), not by name: per input file and
    run, what it is (reconstructed answers, synthetic rankings) and how many rows it gave.
    Empty when a user's own data has replaced them: the report's notice that its figures are
    not findings about the models is shown only while this has rows. -#}
{% set shipped = shipped_inputs() %}

with known as (

    {% for input in shipped %}
    select
        '{{ input.study }}' as study,
        '{{ input.what }}' as what,
        '{{ input.file }}' as shipped_as,
        '{{ input.sha256 }}' as content_hash
    {{ 'union all' if not loop.last }}
    {% endfor %}

),

answers as (

    select
        'mcq' as study,
        answers.content_hash,
        answers.source_file,
        answers.run_id,
        runs.model,
        count(*) as n_rows
    from {{ ref('stg_mcq__answers') }} as answers
    inner join {{ ref('stg_mcq__runs') }} as runs on answers.run_id = runs.run_id
    where answers.content_hash in (select content_hash from known where study = 'mcq')
    group by answers.content_hash, answers.source_file, answers.run_id, runs.model

),

rankings as (

    select
        'ranking' as study,
        content_hash,
        'seeds/ranking/ranking_rankings.csv' as source_file,
        cast(null as {{ dbt.type_string() }}) as run_id,
        cast(null as {{ dbt.type_string() }}) as model,
        count(*) as n_rows
    from {{ ref('stg_ranking__rankings') }}
    where content_hash in (select content_hash from known where study = 'ranking')
    group by content_hash

),

found as (

    select * from answers
    union all
    select * from rankings

),

final as (

    select
        found.study || ':' || found.source_file || coalesce('#' || found.run_id, '')
            as input_id,
        found.study,
        known.what,
        found.source_file,
        known.shipped_as,
        found.content_hash,
        found.run_id,
        found.model,
        found.n_rows
    from found
    inner join known using (study, content_hash)

)

select * from final
