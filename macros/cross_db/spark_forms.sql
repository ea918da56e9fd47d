{#- The Spark forms of what DuckDB does its own way: the incremental models and on-run-end's
    table replacement. (The landing's reader is macros/cross_db/landing.sql.) -#}


{#- How the cross-lingual study's incremental models write what a build computed. On DuckDB
    they append: their pre-hooks and post-hooks delete the rows of what changed or is gone
    (the normalised answers by file version, macros/mcq_answers.sql; the models downstream
    by group, macros/mcq_incremental_groups.sql). dbt-spark's Parquet tables have no delete:
    on Spark each such table is partitioned by its run (or group) and a build overwrites the
    partitions of what it computed (dynamic partition overwrite, `insert_overwrite`), and
    drops the partitions of what is gone (the hooks' Spark forms); no other partition's files
    are written. -#}
{% macro mcq_incremental_write(partition) %}
    {{ return(adapter.dispatch('mcq_incremental_write', 'concord')(partition)) }}
{% endmacro %}

{% macro default__mcq_incremental_write(partition) %}
    {{ return({'materialized': 'incremental', 'incremental_strategy': 'append',
               'on_schema_change': 'fail'}) }}
{% endmacro %}

{% macro spark__mcq_incremental_write(partition) %}
    {{ return({'materialized': 'incremental', 'incremental_strategy': 'insert_overwrite',
               'partition_by': [partition], 'on_schema_change': 'fail'}) }}
{% endmacro %}

{#- Spark: refuse, in one line, an incremental build onto `relation` when it is not
    partitioned by `column` (a table an earlier Concord built whole): the partitions it would
    overwrite do not exist. -#}
{% macro spark_require_partitioned(relation, column) %}
    {%- set described = run_query('describe table extended ' ~ relation) -%}
    {%- set found = namespace(section=false, column=false) -%}
    {%- for row in described -%}
        {%- if row[0] == '# Partition Information' -%}
            {%- set found.section = true -%}
        {%- elif found.section and row[0] == column -%}
            {%- set found.column = true -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if not found.column -%}
        {{ exceptions.raise_compiler_error(relation ~ " was built by an earlier Concord, not "
            ~ "partitioned by " ~ column ~ " (CHANGELOG.md): run `dbt run --target spark "
            ~ "--full-refresh --select config.materialized:incremental` once, then build") }}
    {%- endif -%}
{% endmacro %}

{#- Spark: drop the partitions of `relation` whose `column` is one of `values`' rows (the
    result of run_query), one statement each (Spark takes one per call). -#}
{% macro spark_drop_partitions(relation, column, values) %}
    {%- for row in values -%}
        {%- do run_query('alter table ' ~ relation ~ ' drop if exists partition ('
            ~ column ~ ' = ' ~ sql_string_literal(row[0]) ~ ')') -%}
    {%- endfor -%}
{% endmacro %}

{#- Spark: whether the table `relation` exists (the catalogue's answer, not dbt's cache: a
    hook's own `drop table` does not reach the cache). -#}
{% macro spark_table_exists(relation) %}
    {{ return(run_query('show tables in ' ~ relation.schema ~ ' like '
        ~ sql_string_literal(relation.identifier)).rows | length > 0) }}
{% endmacro %}

{#- Spark: the columns of the partitioned table `relation`, when it has no partition, kept in
    its folder's `_schema/` as an empty Parquet file: such a table has no file, and a
    reader without Spark's catalogue (concord_io.spark.mirror) finds its columns there.
    Spark's own readers skip a folder whose name starts with `_`; a table with partitions
    needs none (`show partitions` asks the catalogue, no job runs), and one left from when
    the table was empty holds the same columns. -#}
{% macro spark_keep_table_schema(relation) %}
    {%- if run_query('show partitions ' ~ relation).rows | length == 0 -%}
        {%- for row in run_query('describe formatted ' ~ relation) if row[0] == 'Location' -%}
            {%- do run_query('insert overwrite directory ' ~ sql_string_literal(row[1] ~ '/_schema')
                ~ ' using parquet select * from ' ~ relation ~ ' where false') -%}
        {%- endfor -%}
    {%- endif -%}
{% endmacro %}

{#- Spark, after an incremental model's write: the model and the versions table's columns kept
    where they have no partition (spark_keep_table_schema), and the temporary view dbt-spark
    made of the rows to write (`<model>__dbt_tmp`) dropped; left in the session, it is a
    table without a schema to dbt docs' catalogue, which then fails. -#}
{% macro spark_incremental_written(tables) %}
    {%- for relation in tables -%}
        {%- do spark_keep_table_schema(relation) -%}
    {%- endfor -%}
    {%- do run_query('drop view if exists ' ~ this.identifier ~ '__dbt_tmp') -%}
{% endmacro %}

{#- on-run-end's marts.dq_test_failures: Spark's Parquet tables have no `create or
    replace` (a v2-catalogue feature) and take the comment in the create; its string
    literals escape a quote with a backslash ('' is two adjacent literals there); a Parquet
    table keeps no key. -#}
{% macro spark__replace_table_as(name, select_sql, comment, key=[]) %}
    {%- do run_query('drop table if exists ' ~ name) -%}
    {%- do run_query('create table ' ~ name ~ ' using parquet comment '
        ~ sql_string_literal(comment) ~ ' as ' ~ select_sql) -%}
{% endmacro %}
