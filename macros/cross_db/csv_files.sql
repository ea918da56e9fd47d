{#- The answer and item files on Spark: listing, hashing and reading them with Spark's own
    file sources (binaryFile, csv, parquet) instead of DuckDB's glob, read_blob and
    read_csv. The byte-level checks of strict_csv_inspect (not UTF-8, NUL bytes, the line
    of the first bad byte) and the rejects tables of strict_csv_scan are DuckDB's: on Spark
    an empty file is still refused, and a row Spark's CSV parser cannot read stops the
    model (mode FAILFAST) instead of being named row by row. Build on DuckDB first to get
    the one-line messages; Spark reads the same files the same way once they are good. -#}


{#- A Spark SQL path literal for file_format.`path`: backticks doubled. -#}
{% macro spark_path_literal(path) -%}
    `{{ path | replace('`', '``') }}`
{%- endmacro %}


{#- The JVM's working directory (dbt's own, as pyspark starts the JVM from it): relative
    folder vars are relative to it, and Spark lists files by absolute path. -#}
{% macro spark_absolute_folder(directory) %}
    {%- set folder = directory.rstrip('/') -%}
    {%- if not folder.startswith('/') -%}
        {%- set cwd = run_query(
            "select reflect('java.lang.System', 'getProperty', 'user.dir')"
        ).columns[0].values()[0] -%}
        {%- set folder = cwd.rstrip('/') ~ '/' ~ (folder[2:] if folder.startswith('./') else folder) -%}
    {%- endif -%}
    {{ return(folder) }}
{% endmacro %}


{% macro spark__mcq_list_files(directory, pattern, recursive) %}
    {%- set folder = spark_absolute_folder(directory) -%}
    {%- set view = 'concord_files_' ~ local_md5(folder) -%}
    {%- do run_query(
        'create or replace temporary view ' ~ view ~ " using binaryFile options (path '"
        ~ folder | replace("'", "\\'") ~ "', recursiveFileLookup 'true')"
    ) -%}
    {%- set prefix = 'file:' ~ folder ~ '/' -%}
    {%- set paths = run_query('select path from ' ~ view).columns[0].values() | list -%}
    {%- set glob = '^' ~ modules.re.escape(pattern).replace('\\*\\*', '.*').replace('\\*', '[^/]*') ~ '$' -%}
    {%- set names = [] -%}
    {%- for path in paths -%}
        {%- set name = path[prefix | length:] if path.startswith(prefix) else path -%}
        {%- if modules.re.search('\\.(csv|parquet|jsonl|json)$', name)
            and modules.re.match(glob, name) and (recursive or '/' not in name) -%}
            {%- do names.append(name) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(names | sort) }}
{% endmacro %}


{#- (no stat: on Spark every file is hashed every build, see mcq_cached_inspections) -#}
{% macro spark__mcq_file_md5(path) %}
    {{ return({'problem': '', 'content_md5': run_query(
        'select md5(content) from binaryFile.' ~ spark_path_literal(path)
    ).columns[0].values()[0]}) }}
{% endmacro %}


{#- Size, md5 and header record as on DuckDB (the same regex, in Java's dialect); the
    encoding checks are DuckDB's (see the top of this file). -#}
{% macro spark__strict_csv_inspect(path, label, with_content) %}
    {%- set query -%}
        select
            length(content) as size,
            md5(content) as content_md5,
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
    {{ return({'problem': problem, 'header_text': row['header_text'], 'content': row['content'],
               'content_md5': row['content_md5']}) }}
{% endmacro %}


{#- One CSV file as a temporary view of text columns named by `header` (Spark's CSV
    reader; multiLine keeps quoted line breaks and the file in one partition), plus
    source_row: the data row's number, computed as load_order_row_number() does (the
    file's rows in the order Spark reads them). An empty cell is '' with empty_as_text,
    else null, as on DuckDB. -#}
{% macro spark__strict_csv_scan(path, header, rejects_table, empty_as_text, strict) %}
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
            ~ " escape '\"', enforceSchema 'true', mode '" ~ ('FAILFAST' if strict else 'PERMISSIVE') ~ "'"
            ~ (", nullValue '\\u0000', emptyValue ''" if empty_as_text else '') ~ ')'
        ) -%}
    {%- endif -%}
    (
        select
            *,
            cast(row_number() over (order by monotonically_increasing_id()) as bigint) as source_row
        from {{ view }}
    )
{%- endmacro %}


{#- The rejects tables are DuckDB's: on Spark a malformed row already failed the scan. -#}
{% macro spark__strict_csv_assert_no_rejects(rejects_table) %}
    select 1
{% endmacro %}

{% macro spark__strict_csv_reset_rejects(rejects_table) %}
    select 1
{% endmacro %}


{#- The incremental models delete rows: the answer staging models and the normalised
    answers by file version (delete+insert on source_file), the models downstream by group
    (macros/mcq_incremental_groups.sql). dbt-spark's Parquet tables have no delete: on Spark
    they are tables rebuilt from every registered file and group (mcq_files_to_read then
    reads every file, mcq_in_groups_to_compute keeps every group). -#}
{% macro incremental_materialization() %}
    {{ return(adapter.dispatch('incremental_materialization', 'concord')()) }}
{% endmacro %}

{% macro default__incremental_materialization() %}
    {{ return('incremental') }}
{% endmacro %}

{% macro spark__incremental_materialization() %}
    {{ return('table') }}
{% endmacro %}

{% macro spark__mcq_delete_removed_files(relation, current) %}
    select 1
{% endmacro %}


{#- on-run-start's probe_baseline_group check reads the probe_names seed file: the same
    strict scan as the answer files. -#}
{% macro spark__seed_file_groups_query(path) %}
    {%- set header = strict_csv_header(path, 'probe_names seed', strict=false) -%}
    {{ return('select distinct group_name from '
        ~ strict_csv_scan(path, header, empty_as_text=false, strict=false) ~ ' order by 1') }}
{% endmacro %}


{#- on-run-end's marts.dq_test_failures: Spark's Parquet tables have no `create or
    replace` (a v2-catalogue feature) and take the comment in the create; its string
    literals escape a quote with a backslash ('' is two adjacent literals there). -#}
{% macro spark__replace_table_as(name, select_sql, comment) %}
    {%- do run_query('drop table if exists ' ~ name) -%}
    {%- do run_query('create table ' ~ name ~ ' using parquet comment '
        ~ sql_string_literal(comment) ~ ' as ' ~ select_sql) -%}
{% endmacro %}


{#- Long-format answer files and lm-evaluation-harness sample logs on Spark, in the shape
    of duckdb__mcq_answer_records (macros/mcq_answer_records.sql): Spark's csv, parquet and
    text sources, JSON read with get_json_object/from_json. source_row is the record's
    position in the file, computed as load_order_row_number() does. -#}
{% macro spark__mcq_answer_records(path, relative, line, rejects_table) %}
    {%- set extension = path.rsplit('.', 1)[-1] | lower -%}
    {%- set inspected = strict_csv_inspect(path, relative) if extension != 'parquet' and execute else {'problem': ''} -%}
    {%- if inspected['problem'] -%}
        {{ exceptions.raise_compiler_error(inspected['problem']) }}
    {%- endif -%}
    {%- set order = mcq_literal(line['presented_option_order'] or var('mcq_options') | join('')) -%}
    {%- set required = ['item_id', 'language', 'answer'] -%}
    {%- set position = 'cast(row_number() over (order by monotonically_increasing_id()) as bigint)' -%}
    {%- set json_lines -%}
        (select {{ position }} as source_row, value as json_line from text.{{ spark_path_literal(path) }})
    {%- endset -%}
    {%- if line['format'] == 'lm_eval' -%}
        {%- set key = line.get('item_key') or 'doc_id' %}
    select
        {{ mcq_literal(relative) }} as source_file,
        source_row,
        {{ mcq_literal(line['model']) }} as model,
        {{ mcq_literal(line['run']) }} as run,
        {%- if key == 'doc_id' %}
        -- the harness numbers documents from 0; items are numbered from 1
        cast(try_cast(get_json_object(json_line, '$.doc_id') as bigint) + 1 as string) as item_key,
        {%- else %}
        get_json_object(json_line, {{ mcq_literal('$.' ~ key) }}) as item_key,
        {%- endif %}
        {{ mcq_literal(line['language']) }} as language,
        -- the chosen option: the choice with the highest log-likelihood (the first on ties)
        chr(64 + array_position(choice_lls, array_max(choice_lls))) as answer_raw,
        'filtered_resps' as source_column,
        {{ order }} as presented_option_order,
        case
            when not is_json then 'not a JSON object'
            when choice_lls is null or size(choice_lls) = 0
                then 'no log-likelihoods in filtered_resps or resps'
            when array_contains(choice_lls, double('NaN'))
                then 'a log-likelihood is NaN'
            when size(choice_lls) > {{ var('mcq_options') | length }}
                then 'more choices than options ' || {{ mcq_literal(var('mcq_options') | join('')) }}
        end as record_problem
    from (
        select
            *,
            case when is_json then coalesce(case when size(filtered) > 0 then filtered end, raw) end
                as choice_lls
        from (
            select
                source_row,
                json_line,
                is_json,
                transform(
                    from_json(json_line, 'filtered_resps array<array<string>>').filtered_resps,
                    resp -> try_cast(get(resp, 0) as double)
                ) as filtered,
                transform(
                    from_json(json_line, 'resps array<array<array<string>>>').resps,
                    resp -> try_cast(get(get(resp, 0), 0) as double)
                ) as raw
            from (select *, try_parse_json(json_line) is not null as is_json from {{ json_lines }})
            where trim(coalesce(json_line, '')) <> ''
        )
    )
    {%- elif extension in ('jsonl', 'json') %}
    select
        {{ mcq_literal(relative) }} as source_file,
        source_row,
        coalesce(get_json_object(json_line, '$.model'), {{ mcq_literal_or_null(line['model']) }}) as model,
        coalesce(get_json_object(json_line, '$.run'), {{ mcq_literal_or_null(line['run']) }}) as run,
        get_json_object(json_line, '$.item_id') as item_key,
        get_json_object(json_line, '$.language') as language,
        get_json_object(json_line, '$.answer') as answer_raw,
        'answer' as source_column,
        {{ order }} as presented_option_order,
        case when try_parse_json(json_line) is null then 'not a JSON object' end as record_problem
    from {{ json_lines }}
    where trim(coalesce(json_line, '')) <> ''
    {%- else -%}
        {%- if extension == 'parquet' -%}
            {%- set source -%}
                (select *, {{ position }} as source_row from parquet.{{ spark_path_literal(path) }})
            {%- endset -%}
            {%- set header = run_query('select * from ' ~ source ~ ' limit 0').column_names | list
                if execute else required -%}
            {%- set missing = required | reject('in', header) | list -%}
            {%- if missing -%}
                {{ exceptions.raise_compiler_error(
                    relative ~ ': missing column(s) ' ~ missing | join(', ') ~ ' (columns: '
                    ~ header | join(', ') ~ ')') }}
            {%- endif -%}
        {%- else -%}
            {%- set header = strict_csv_header(path, relative, required) if execute else required -%}
            {%- set source = strict_csv_scan(path, header, rejects_table=rejects_table) -%}
        {%- endif %}
    select
        {{ mcq_literal(relative) }} as source_file,
        source_row,
        {%- for field in ['model', 'run'] %}
        {%- if field in header %}
        coalesce(nullif(trim(cast({{ adapter.quote(field) }} as string)), ''), {{ mcq_literal_or_null(line[field]) }}) as {{ field }},
        {%- else %}
        {{ mcq_literal_or_null(line[field]) }} as {{ field }},
        {%- endif %}
        {%- endfor %}
        cast(`item_id` as string) as item_key,
        cast(`language` as string) as language,
        cast(`answer` as string) as answer_raw,
        'answer' as source_column,
        {{ order }} as presented_option_order,
        cast(null as string) as record_problem
    from {{ source }}
    {%- endif %}
{% endmacro %}
