{#- Incremental by group. The models between the normalised answers and the marts that cost
    seconds at scale (the per-item classification, the variant/baseline pairing; the facts
    are views of them) hold groups that depend on nothing but their own answers: a run's
    items, a model revision's pairs of runs. A group's version is a hash of the versions of
    the answer files its answers come from (int_mcq_runs_versioned, per run; per model
    revision, a hash of its runs'). Each such model keeps the versions
    its groups were computed from in <model>__group_versions (beside
    int_mcq_runs_versioned, not in marts: no bookkeeping is published). A build deletes the
    rows of groups whose version changed or that are gone, and computes the groups it holds
    no version for (new or changed). The first build and `--full-refresh` compute every
    group. On Spark, whose Parquet tables have no delete, the model and its versions are
    partitioned by the group: the pre-hook drops the partitions of groups that changed or
    are gone, and the build overwrites the partitions of the groups it computes
    (mcq_incremental_write).

    A model uses all three: the filter in its SQL, the pre-hook and the post-hook, with
    the same `versions` and `grain`. A version is forgotten before its rows are deleted and
    kept only after they are inserted, so a build that stops half-way leaves groups
    without a version, which the next build deletes and computes again. -#}

{#- The versions the model being built was computed from: <model>__group_versions, in the
    schema of the `versions` it was computed against. -#}
{% macro mcq_kept_group_versions(versions) %}
    {{ return(api.Relation.create(
        database=versions.database, schema=versions.schema,
        identifier=this.identifier ~ '__group_versions')) }}
{% endmacro %}

{#- The version of every `grain` group now, from `versions` (run_id, input_version and the
    run's model, revision_key and variant). -#}
{% macro mcq_group_versions_now(versions, grain) -%}
    select
        {{ grain | join(', ') }},
        {{ dbt.hash(string_agg_ordered(
            "run_id || '|' || input_version", "','", 'run_id')) }} as input_version
    from {{ versions }}
    group by {{ grain | join(', ') }}
{%- endmacro %}

{#- `a.c = b.c and ...` over the grain columns. -#}
{% macro mcq_same_group(left, right, grain) -%}
    {%- for column in grain -%}
        {{ left }}.{{ column }} = {{ right }}.{{ column }}{{ ' and ' if not loop.last }}
    {%- endfor -%}
{%- endmacro %}

{#- The model's filter on its input rows (their grain columns, unqualified): the rows of
    the groups to compute now. -#}
{% macro mcq_in_groups_to_compute(versions, grain) -%}
    {%- if is_incremental() -%}
        ({{ grain | join(', ') }}) in (
            select {{ grain | join(', ') }}
            from ({{ mcq_group_versions_now(versions, grain) }}) as now
            where not exists (
                select 1 from {{ mcq_kept_group_versions(versions) }} as kept
                where {{ mcq_same_group('kept', 'now', grain) }}
            )
        )
    {%- else -%}
        true
    {%- endif -%}
{%- endmacro %}

{#- Pre-hook: forget the versions that changed or are gone and delete their groups' rows;
    a full build starts without versions. -#}
{% macro mcq_forget_changed_groups(versions, grain) %}
    {%- if not is_incremental() -%}
        drop table if exists {{ mcq_kept_group_versions(versions) }}
    {%- else -%}
        {%- set held = adapter.get_columns_in_relation(this) | map(attribute='name') | list -%}
        {%- for column in grain if column not in held -%}
            {{ exceptions.raise_compiler_error(
                this ~ " was built by an earlier Concord and has no column " ~ column
                ~ " (its shape changed; CHANGELOG.md): run `dbt build --full-refresh` once") }}
        {%- endfor -%}
        {{ adapter.dispatch('mcq_forget_changed_groups', 'concord')(versions, grain) }}
    {%- endif -%}
{% endmacro %}

{#- The versions held but not current: a group that changed or is gone. -#}
{% macro mcq_stale_group_versions(versions, grain) -%}
    select * from {{ mcq_kept_group_versions(versions) }} as kept
    where not exists (
        select 1 from ({{ mcq_group_versions_now(versions, grain) }}) as now
        where {{ mcq_same_group('now', 'kept', grain) }} and now.input_version = kept.input_version
    )
{%- endmacro %}

{% macro default__mcq_forget_changed_groups(versions, grain) %}
    {%- set kept = mcq_kept_group_versions(versions) -%}
    {{ mcq_create_kept_group_versions(versions, grain) }};
    delete from {{ kept }} as kept
    where not exists (
        select 1 from ({{ mcq_group_versions_now(versions, grain) }}) as now
        where {{ mcq_same_group('now', 'kept', grain) }} and now.input_version = kept.input_version
    );
    delete from {{ this }} as target
    where not exists (
        select 1 from {{ kept }} as kept where {{ mcq_same_group('kept', 'target', grain) }}
    )
{% endmacro %}

{#- Spark: the stale groups' partitions dropped, the model's first, so that a build that
    stops half-way still holds their versions and drops them next time. -#}
{% macro spark__mcq_forget_changed_groups(versions, grain) %}
    {%- if execute -%}
        {{ spark_require_partitioned(this, grain[0]) }}
        {%- do run_query(mcq_create_kept_group_versions(versions, grain)) -%}
        {%- set stale = run_query('select ' ~ grain[0] ~ ' from ('
            ~ mcq_stale_group_versions(versions, grain) ~ ') as stale') -%}
        {%- do spark_drop_partitions(this, grain[0], stale) -%}
        {%- do spark_drop_partitions(mcq_kept_group_versions(versions), grain[0], stale) -%}
    {%- endif -%}
    select 1
{% endmacro %}

{#- The versions table, empty where there is none (partitioned by the group on Spark). -#}
{% macro mcq_create_kept_group_versions(versions, grain) -%}
    create table if not exists {{ mcq_kept_group_versions(versions) }}
    {% if target.type == 'spark' %}using parquet partitioned by ({{ grain[0] }}){% endif %}
    as select * from ({{ mcq_group_versions_now(versions, grain) }}) as now where false
{%- endmacro %}

{#- Post-hook: keep the versions of the groups just computed. -#}
{% macro mcq_keep_group_versions(versions, grain) %}
    {%- set kept = mcq_kept_group_versions(versions) -%}
    {%- set create = mcq_create_kept_group_versions(versions, grain) -%}
    {%- set insert -%}
        insert into {{ kept }} ({{ grain | join(', ') }}, input_version)
        select {{ grain | join(', ') }}, input_version
        from ({{ mcq_group_versions_now(versions, grain) }}) as now
        where not exists (
            select 1 from {{ kept }} as kept where {{ mcq_same_group('kept', 'now', grain) }}
        )
    {%- endset -%}
    {%- if target.type != 'spark' -%}
        {{ create }};
        {{ insert }}
    {%- else -%}
        {#- Spark takes one statement per call; where the versions table is not there (a
            first build), one job creates it with every group's version -#}
        {%- if execute -%}
            {%- if spark_table_exists(kept) -%}
                {%- do run_query(insert) -%}
            {%- else -%}
                {%- do run_query('create table ' ~ kept ~ ' using parquet partitioned by ('
                    ~ grain[0] ~ ') as select ' ~ grain | join(', ') ~ ', input_version from ('
                    ~ mcq_group_versions_now(versions, grain) ~ ') as now') -%}
            {%- endif -%}
            {%- do spark_incremental_written([this, kept]) -%}
        {%- endif -%}
        select 1
    {%- endif -%}
{% endmacro %}
