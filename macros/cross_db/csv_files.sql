{#- The dbt seeds' CSV files on Spark, inspected and read with Spark's own file sources
    (binaryFile, csv) instead of DuckDB's read_blob and read_csv. The byte-level checks of
    strict_csv_inspect (not UTF-8, NUL bytes, the line of the first bad byte) are DuckDB's:
    on Spark an empty file is still refused. Build on DuckDB first to get the one-line
    messages; Spark reads the same files the same way once they are good. (The
    cross-lingual study's answer and item files are not read by dbt at all: the reader lands
    them, and Spark reads the landing, macros/cross_db/landing.sql.) Also here: the Spark
    forms of the incremental models and of on-run-end's table replacement. -#}


{#- A Spark SQL path literal for file_format.`path`: backticks doubled. -#}
{% macro spark_path_literal(path) -%}
    `{{ path | replace('`', '``') }}`
{%- endmacro %}


{#- Size and header record as on DuckDB (the same regex, in Java's dialect); the encoding
    checks are DuckDB's (see the top of this file). -#}
{% macro spark__strict_csv_inspect(path, label, with_content) %}
    {%- set query -%}
        select
            length(content) as size,
            regexp_extract(text, '^(?:"(?:[^"]|"")*"|[^"\\r\\n])*', 0) as header_text,
            {% if with_content %}text{% else %}cast(null as string){% endif %} as content
        from (
            select content, regexp_replace(decode(content, 'UTF-8'), '^\\uFEFF', '') as text
            from binaryFile.{{ spark_path_literal(path) }}
        )
    {%- endset -%}
    {%- set row = run_query(query).rows[0] -%}
    {%- set problem = '' -%}
    {%- if row['size'] == 0 -%}
        {%- set problem = label ~ ': the file is empty (no header row). Nothing was loaded.' -%}
    {%- endif -%}
    {{ return({'problem': problem, 'header_text': row['header_text'], 'content': row['content']}) }}
{% endmacro %}


{#- One CSV file as a temporary view of text columns named by `header` (Spark's CSV
    reader; multiLine keeps quoted line breaks and the file in one partition), plus
    source_row: the data row's number, computed as load_order_row_number() does (the
    file's rows in the order Spark reads them). An empty cell is null, as on DuckDB. -#}
{% macro spark__strict_csv_scan(path, header) %}
    {%- set view = 'concord_csv_' ~ local_md5(path) -%}
    {%- set columns = [] -%}
    {%- for name in header -%}
        {%- do columns.append(adapter.quote(name) ~ ' string') -%}
    {%- endfor -%}
    {%- if execute -%}
        {%- do run_query(
            'create or replace temporary view ' ~ view ~ ' (' ~ columns | join(', ') ~ ')'
            ~ " using csv options (path '" ~ path | replace('\\', '\\\\') | replace("'", "\\'") ~ "',"
            ~ " header 'true', multiLine 'true', encoding 'UTF-8', sep ',', quote '\"',"
            ~ " escape '\"', enforceSchema 'true', mode 'PERMISSIVE')"
        ) -%}
    {%- endif -%}
    (
        select
            *,
            cast(row_number() over (order by monotonically_increasing_id()) as bigint) as source_row
        from {{ view }}
    )
{%- endmacro %}


{#- The incremental models delete rows: the normalised answers by file version (their
    post-hook, macros/mcq_answers.sql), the models downstream by group
    (macros/mcq_incremental_groups.sql). dbt-spark's Parquet tables have no delete: on Spark
    they are tables rebuilt from every landed run and group (mcq_in_groups_to_compute then
    keeps every group). -#}
{% macro incremental_materialization() %}
    {{ return(adapter.dispatch('incremental_materialization', 'concord')()) }}
{% endmacro %}

{% macro default__incremental_materialization() %}
    {{ return('incremental') }}
{% endmacro %}

{% macro spark__incremental_materialization() %}
    {{ return('table') }}
{% endmacro %}

{#- on-run-start's probe_baseline_group check reads the probe_names seed file: the same
    scan as the seeds. -#}
{% macro spark__seed_file_groups_query(path) %}
    {%- set header = strict_csv_header(path, 'probe_names seed') -%}
    {{ return('select distinct group_name from '
        ~ strict_csv_scan(path, header) ~ ' order by 1') }}
{% endmacro %}


{#- on-run-end's marts.dq_test_failures: Spark's Parquet tables have no `create or
    replace` (a v2-catalogue feature) and take the comment in the create; its string
    literals escape a quote with a backslash ('' is two adjacent literals there). -#}
{% macro spark__replace_table_as(name, select_sql, comment) %}
    {%- do run_query('drop table if exists ' ~ name) -%}
    {%- do run_query('create table ' ~ name ~ ' using parquet comment '
        ~ sql_string_literal(comment) ~ ' as ' ~ select_sql) -%}
{% endmacro %}
