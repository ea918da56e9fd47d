{#-
    on-run-end: one row per dbt test of this invocation that did not pass, in
    marts.dq_test_failures, so the failing tests travel with the published marts (publish
    copies schema marts) and `concord status` and the report can list them. The failing rows
    themselves are in the dq_failures schema of the build database (store_failures).
    Only `dbt build` and `dbt test` rewrite it: a `dbt run` has no test results to report.
-#}
{% macro publish_test_failures(results) %}
    {%- if execute and flags.WHICH in ('build', 'test') -%}
        {%- set rows = [] -%}
        {%- for result in results -%}
            {%- set node = result.node -%}
            {%- if node.resource_type == 'test' and result.status not in ('pass', 'success', 'skipped') -%}
                {#- generic tests name the model they are attached to; singular ones their first parent -#}
                {%- set parent = node.attached_node or (node.depends_on.nodes | first) or '' -%}
                {%- set model_name = parent.split('.') | last -%}
                {%- do rows.append([
                    node.name,
                    model_name,
                    node.column_name or '',
                    result.status | string,
                    result.failures or 0,
                    (result.message or '') | string,
                    node.relation_name or '',
                ]) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- set text = dbt.type_string() -%}
        {%- set create -%}
        {% for row in rows %}
        select
            cast({{ sql_string_literal(row[0]) }} as {{ text }}) as test_name,
            cast({{ sql_string_literal(row[1]) }} as {{ text }}) as model_name,
            cast({{ sql_string_literal(row[2]) }} as {{ text }}) as column_name,
            cast({{ sql_string_literal(row[3]) }} as {{ text }}) as status,
            cast({{ row[4] | int }} as {{ dbt.type_bigint() }}) as n_failures,
            cast({{ sql_string_literal(row[5]) }} as {{ text }}) as message,
            cast({{ sql_string_literal(row[6]) }} as {{ text }}) as failures_relation
        {% if not loop.last %}union all{% endif %}
        {% else %}
        select
            cast(null as {{ text }}) as test_name,
            cast(null as {{ text }}) as model_name,
            cast(null as {{ text }}) as column_name,
            cast(null as {{ text }}) as status,
            cast(null as {{ dbt.type_bigint() }}) as n_failures,
            cast(null as {{ text }}) as message,
            cast(null as {{ text }}) as failures_relation
        where 1 = 0
        {% endfor %}
        {%- endset -%}
        {%- do run_query('create schema if not exists marts') -%}
        {%- do replace_table_as('marts.dq_test_failures', create, 'One row per dbt test of the last dbt build that did not pass (warn, fail or error): the test, the model it tests, the column, the status, the number of failing rows and where they are stored (schema dq_failures of the build database). Key: test_name.', key=['test_name']) -%}
        {%- do comment_on_columns('marts.dq_test_failures', {
            'test_name': 'The dbt test''s name (generic tests: kind, model and column; singular tests: the file name).',
            'model_name': 'The model the test checks (a singular test: its first parent).',
            'column_name': 'The column a generic test checks; empty for tests of a whole model.',
            'status': 'warn (severity warn, the build went on), fail (the build failed) or error (the test could not run).',
            'n_failures': 'Rows the test returned: the failing rows.',
            'message': 'dbt''s message for the test result.',
            'failures_relation': 'The view in schema dq_failures of the build database that holds the failing rows (select * from it), empty where none is stored.',
        }) -%}
    {%- endif -%}
{% endmacro %}

{#- Replace table `name` by the result of `select_sql`, with a table comment and, where the
    engine keeps one, the primary key `key` (the columns BI tools join on). -#}
{% macro replace_table_as(name, select_sql, comment, key=[]) %}
    {{ return(adapter.dispatch('replace_table_as', 'concord')(name, select_sql, comment, key)) }}
{% endmacro %}

{% macro default__replace_table_as(name, select_sql, comment, key=[]) %}
    {%- do run_query('create or replace table ' ~ name ~ ' as ' ~ select_sql) -%}
    {%- if key -%}
        {%- do run_query('alter table ' ~ name ~ ' add primary key (' ~ key | join(', ') ~ ')') -%}
    {%- endif -%}
    {%- do run_query('comment on table ' ~ name ~ ' is ' ~ sql_string_literal(comment)) -%}
{% endmacro %}

{#- Column comments on table `name` ({column: text}); the published file carries them
    (concord_io.serving.publish copies the build's comments of tables that no model describes). -#}
{% macro comment_on_columns(name, comments) %}
    {{ return(adapter.dispatch('comment_on_columns', 'concord')(name, comments)) }}
{% endmacro %}

{% macro default__comment_on_columns(name, comments) %}
    {%- for column, text in comments.items() -%}
        {%- do run_query('comment on column ' ~ name ~ '.' ~ column ~ ' is ' ~ sql_string_literal(text)) -%}
    {%- endfor -%}
{% endmacro %}

{#- Spark's Parquet tables are not published: the descriptions live in the DuckDB build. -#}
{% macro spark__comment_on_columns(name, comments) %}
{% endmacro %}
