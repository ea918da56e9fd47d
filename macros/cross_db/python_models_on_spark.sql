{#- dbt Python models on Spark. dbt-spark submits Python models to Databricks clusters only.
    `concord build --target spark` (and the Spark tests) give it the submission method
    `session` (concord_io.spark.py, which sets CONCORD_SPARK_PYTHON=session): the
    model's code runs on dbt's own SparkSession, reading its parents' Spark tables, and
    dbt-spark's materialization writes its result as a Parquet table. Without that method
    (a plain `dbt build --target spark`), this table materialization gives each Python model
    the table of results that a DuckDB build of the same model wrote (`python -m
    concord_io.python_results`: <dir>/<model>.parquet, with dir the var
    spark_python_results_dir), and says so; without that folder either, the model fails in
    one line naming the command that runs it, and dbt skips only what depends on it. Every
    other model, and every Python model on Databricks (dbt-databricks, whose own
    materialization is chosen before this one), builds as dbt-spark builds it. -#}
{% materialization table, adapter='spark', supported_languages=['sql', 'python'] %}
    {%- if model['language'] != 'python' or adapter.type() != 'spark' -%}
        {{ return(dbt.materialization_table_spark()) }}
    {%- endif -%}
    {%- set in_session = env_var('CONCORD_SPARK_PYTHON', '') == 'session' -%}
    {%- set results = none if in_session else concord_python_results_path() -%}
    {#- dbt submits a Python model's code only from a statement called by the materialization
        itself (not from a macro it calls), so dbt-spark's steps for it are here: the old
        table dropped (Parquet: no replace), the code run, its result written -#}
    {%- set target_relation = api.Relation.create(
        identifier=model['alias'], schema=schema, database=database, type='table'
    ) -%}
    {%- set old_relation = adapter.get_relation(
        database=database, schema=schema, identifier=model['alias']
    ) -%}
    {%- if old_relation is not none -%}
        {{ adapter.drop_relation(old_relation) }}
    {%- endif -%}
    {%- if in_session -%}
        {%- call statement('main', language='python') -%}
            {{ create_table_as(False, target_relation, compiled_code, 'python') }}
        {%- endcall -%}
    {%- else -%}
        {%- call statement('main') -%}
            create table {{ target_relation }} using parquet as
            select * from parquet.`{{ results }}`
        {%- endcall -%}
    {%- endif -%}
    {% do persist_docs(target_relation, model) %}
    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}


{#- Where a DuckDB build's results of this Python model are (the old way: a plain dbt-spark),
    said in the log; without the folder, the model fails in one line naming the command
    that runs it on Spark. -#}
{% macro concord_python_results_path() %}
    {%- set results_dir = var('spark_python_results_dir') -%}
    {%- set path = results_dir ~ '/' ~ model['name'] ~ '.parquet' -%}
    {%- if not results_dir -%}
        {{ exceptions.raise_compiler_error(
            model['name'] ~ ' is a dbt Python model: plain dbt-spark runs Python models only'
            ~ ' on Databricks; `concord build --target spark` runs it on this Spark session'
            ~ ' (or load a DuckDB build\'s results: CONCORD_SPARK_PYTHON_RESULTS, docs/spark.md).'
        ) }}
    {%- endif -%}
    {%- do log(
        model['name'] ~ ' is a dbt Python model, which dbt-spark cannot run on open-source'
        ~ ' Spark: loading the results of a DuckDB build from ' ~ path, info=true
    ) -%}
    {{ return(path) }}
{% endmacro %}
