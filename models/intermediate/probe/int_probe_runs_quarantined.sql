{#- Landed probe runs that never reach the marts, one row per run and problem, in the
    standard quarantine columns (source = the run's folder, record_key = its folder run id).
    A run is checked at the warehouse boundary against its folder and against the design of
    the seeds: a run id that is not a valid run id or differs from its folder's name (a
    hand-edited or foreign file), a group, name, message or candidate the seeds do not
    define, or a run that does not cover the whole design. One bad row quarantines the whole
    run: a partial run would bias every paired comparison. -#}
with runs as (select * from {{ ref('stg_probe__runs') }}),

scores as (select * from {{ ref('stg_probe__scores') }}),

stimuli as (select * from {{ ref('stg_probe__stimuli') }}),

messages as (select * from {{ ref('stg_probe__messages') }}),

names as (select * from {{ ref('stg_probe__names') }}),

candidates as (select * from {{ ref('stg_probe__candidates') }}),

design as (
    select
        messages.msg_id,
        names.group_name,
        names.sender_name,
        {{ sql_string_literal("Hi, I'm ") }} || names.sender_name || '. ' || messages.message
            as stimulus
    from messages
    cross join names
),

{%- set landed_tables = ['runs', 'scores', 'stimuli'] %}
{%- for table in landed_tables %}

{{ table }}_located as (
    select
        {{ table }}.*,
        regexp_extract(landing_file, '^(.*)/[^/]*$', 1) as folder,
        {{ probe_folder_run_id('landing_file') }} as folder_run_id
    from {{ table }}
),
{%- endfor %}

landed_rows as (
    {%- for table in landed_tables %}
    select
        '{{ table }}' as table_name,
        run_id,
        folder,
        folder_run_id
    from {{ table }}_located
    {% if not loop.last %}union all{% endif %}
    {%- endfor %}
),

distinct_stimuli as (
    select distinct
        folder,
        folder_run_id,
        msg_id,
        sender_name
    from stimuli_located
),

coverage as (
    select
        folder,
        folder_run_id,
        count(*) as n_stimuli
    from distinct_stimuli
    group by folder, folder_run_id
),

problems as (
    select
        folder,
        folder_run_id,
        'run_id' as column_name,
        min(run_id) as value,
        'run_id is not a valid run id (1-128 letters, digits, _ - ., starting with a letter '
        || 'or digit)' as reason,
        count(*) as n_rows
    from landed_rows
    where not {{ regexp_contains(
        "coalesce(run_id, '')", '^(?:[A-Za-z0-9][A-Za-z0-9_.-]{0,127})\\z'
    ) }}
    group by folder, folder_run_id

    union all

    select
        folder,
        folder_run_id,
        'run_id' as column_name,
        min(run_id) as value,
        'run_id in ' || min(table_name) || '.parquet differs from its folder run_id='
        || folder_run_id as reason,
        count(*) as n_rows
    from landed_rows
    where run_id is distinct from folder_run_id
    group by folder, folder_run_id

    union all

    select
        folder,
        folder_run_id,
        'group_name' as column_name,
        min(group_name) as value,
        'group_name not in seed probe_names' as reason,
        count(*) as n_rows
    from stimuli_located
    where group_name not in (select group_name from names)
    group by folder, folder_run_id

    union all

    select
        folder,
        folder_run_id,
        'sender_name' as column_name,
        min(sender_name) as value,
        'sender_name not in its group in seed probe_names' as reason,
        count(*) as n_rows
    from stimuli_located
    where group_name in (select group_name from names)
        and not exists (
            select 1 from names
            where
                names.group_name = stimuli_located.group_name
                and names.sender_name = stimuli_located.sender_name
        )
    group by folder, folder_run_id

    union all

    select
        located.folder,
        located.folder_run_id,
        'stimulus' as column_name,
        min(located.stimulus) as value,
        'msg_id and stimulus differ from seeds probe_messages x probe_names' as reason,
        count(*) as n_rows
    from stimuli_located as located
    inner join names using (group_name, sender_name)
    left join design using (msg_id, sender_name, stimulus)
    where design.msg_id is null
    group by located.folder, located.folder_run_id

    union all

    select
        located.folder,
        located.folder_run_id,
        'candidate' as column_name,
        min(located.candidate) as value,
        'candidate_id, candidate and candidate_group differ from seed probe_candidates'
        as reason,
        count(*) as n_rows
    from scores_located as located
    left join candidates using (candidate_id, candidate, candidate_group)
    where candidates.candidate_id is null
    group by located.folder, located.folder_run_id

    union all

    select
        folder,
        folder_run_id,
        'stimulus_id' as column_name,
        cast(n_stimuli as {{ dbt.type_string() }}) as value,
        'the run covers ' || n_stimuli || ' of the ' || (select count(*) from design)
        || ' stimuli of the seeds'' design' as reason,
        n_stimuli as n_rows
    from coverage
    where n_stimuli <> (select count(*) from design)
),

final as (
    select
        folder as source,
        cast(null as {{ dbt.type_bigint() }}) as source_row,
        folder_run_id as record_key,
        column_name,
        value,
        reason || ' (' || n_rows || ' row(s)); the run is left out of the marts' as reason
    from problems
)

select * from final
