{#- dbt Python models on Spark. dbt-spark submits Python models to Databricks clusters only;
    on open-source Spark (the `spark` target, or any dbt-spark connection) it cannot run
    them, so on adapter type spark this project never asks it to. Rather
    than fail every model downstream, this table materialization gives each Python model
    the table of results that a DuckDB build of the same model wrote
    (`python -m concord_io.python_results`: <dir>/<model>.parquet, with dir the var
    spark_python_results_dir), and says so; without that folder the model fails with a
    message that names it, and dbt skips only what depends on it. Every other model, and
    every Python model on Databricks (dbt-databricks, whose own materialization is chosen
    before this one), builds as dbt-spark builds it. -#}
{% materialization table, adapter='spark', supported_languages=['sql', 'python'] %}
    {%- if model['language'] == 'python' and adapter.type() == 'spark' -%}
        {{ return(concord_python_model_from_results()) }}
    {%- else -%}
        {{ return(dbt.materialization_table_spark()) }}
    {%- endif -%}
{% endmaterialization %}


{% macro concord_python_model_from_results() %}
    {%- set results_dir = var('spark_python_results_dir') -%}
    {%- set path = results_dir ~ '/' ~ model['name'] ~ '.parquet' -%}
    {%- if not results_dir -%}
        {{ exceptions.raise_compiler_error(
            model['name'] ~ ' is a dbt Python model: dbt-spark runs Python models only on'
            ~ ' Databricks (dbt-databricks), not on open-source Spark. Build it on DuckDB'
            ~ ' (make build), write its results with `python -m concord_io.python_results'
            ~ ' --out DIR` and set CONCORD_SPARK_PYTHON_RESULTS=DIR (var'
            ~ ' spark_python_results_dir), or run this project on Databricks.'
        ) }}
    {%- endif -%}
    {%- do log(
        model['name'] ~ ' is a dbt Python model, which dbt-spark cannot run on open-source'
        ~ ' Spark: loading the results of a DuckDB build from ' ~ path, info=true
    ) -%}
    {%- set target_relation = api.Relation.create(
        identifier=model['alias'], schema=schema, database=database, type='table'
    ) -%}
    {%- set old_relation = adapter.get_relation(
        database=database, schema=schema, identifier=model['alias']
    ) -%}
    {%- if old_relation is not none -%}
        {{ adapter.drop_relation(old_relation) }}
    {%- endif -%}
    {%- call statement('main') -%}
        create table {{ target_relation }} using parquet as
        select * from parquet.`{{ path }}`
    {%- endcall -%}
    {{ return({'relations': [target_relation]}) }}
{% endmacro %}
