{#- Reading one table of the probe's landing folder: <landing>/probe/run_id=*/<table>.parquet.

    Each probe run lands as its own immutable folder (probe/landing.py); hidden .tmp-/.old-/
    .removed- folders of unfinished, replaced or removed runs do not match run_id=* and are
    never read. Before the first probe run there is no file at all: read_parquet would fail
    on an empty glob, so the macro checks the glob first and returns an empty relation with
    the same columns and types, which keeps `dbt build` working (the probe marts are empty).

    The boundary is checked before anything is read: a run folder without one of the
    tables, or a file without one of the columns, stops the build naming the folder, file
    and column. Every row carries landing_file, the file it came from, so the run id in the
    data can be checked against its folder's name (int_probe_runs_checked).

    columns: a mapping column name -> SQL type; every column is cast to its type. -#}

{% macro probe_landing_tables() -%}
    {{ return(['runs', 'scores', 'stimuli']) }}
{%- endmacro %}

{% macro probe_landing_pattern(table_name) -%}
    {{ var('probe_landing_dir') }}/probe/run_id=*/{{ table_name }}.parquet
{%- endmacro %}

{% macro read_probe_landing(table_name, columns) -%}
    {{ return(adapter.dispatch('read_probe_landing', 'concord')(table_name, columns)) }}
{%- endmacro %}

{% macro default__read_probe_landing(table_name, columns) -%}
    {{ exceptions.raise_compiler_error(
        'read_probe_landing has no implementation for adapter ' ~ adapter.type()
        ~ ': add one that reads ' ~ probe_landing_pattern(table_name)
    ) }}
{%- endmacro %}

{% macro duckdb__check_probe_landing(table_name, columns, n_files) -%}
    {#- every run folder that holds any landed file holds this table's file -#}
    {%- set folders = run_query(
        "select distinct regexp_extract(file, '^(.*)/[^/]*$', 1) from glob("
        ~ sql_string_literal(var('probe_landing_dir') ~ "/probe/run_id=*/*.parquet") ~ ") "
        ~ "except select regexp_extract(file, '^(.*)/[^/]*$', 1) from glob("
        ~ sql_string_literal(probe_landing_pattern(table_name)) ~ ") order by 1"
    ) -%}
    {%- for row in folders.rows -%}
        {{ exceptions.raise_compiler_error(
            'probe landing: run folder ' ~ row[0] ~ ' has no ' ~ table_name ~ '.parquet; '
            ~ 'remove the folder (python -m probe runs remove <run id>) or land the run again'
        ) }}
    {%- endfor -%}
    {%- if n_files == 0 -%}{{ return('') }}{%- endif -%}
    {#- every file has every column (parquet_schema lists nested fields too: a superset) -#}
    {%- set names = [] -%}
    {%- for name in columns -%}{%- do names.append("'" ~ name ~ "'") -%}{%- endfor -%}
    {%- set missing = run_query(
        "with expected as (select unnest([" ~ names | join(', ') ~ "]) as name), "
        ~ "files as (select distinct file_name from parquet_schema("
        ~ sql_string_literal(probe_landing_pattern(table_name)) ~ ")), "
        ~ "present as (select file_name, name from parquet_schema("
        ~ sql_string_literal(probe_landing_pattern(table_name)) ~ ")) "
        ~ "select files.file_name, string_agg(expected.name, ', ' order by expected.name) "
        ~ "from files cross join expected "
        ~ "where not exists (select 1 from present where present.file_name = files.file_name "
        ~ "and present.name = expected.name) group by files.file_name order by 1"
    ) -%}
    {%- for row in missing.rows -%}
        {{ exceptions.raise_compiler_error(
            'probe landing: ' ~ row[0] ~ ' lacks column(s) ' ~ row[1]
            ~ '; it was not written by this probe version: land the run again'
        ) }}
    {%- endfor -%}
{%- endmacro %}

{% macro duckdb__read_probe_landing(table_name, columns) -%}
    {%- set pattern = probe_landing_pattern(table_name) -%}
    {%- set n_files = 0 -%}
    {%- if execute -%}
        {%- set found = run_query("select count(*) from glob(" ~ sql_string_literal(pattern) ~ ")") -%}
        {%- set n_files = found.columns[0].values()[0] -%}
        {%- do duckdb__check_probe_landing(table_name, columns, n_files) -%}
    {%- endif -%}
    {%- if n_files > 0 %}
    select
        {%- for name, type in columns.items() %}
        cast({{ name }} as {{ type }}) as {{ name }},
        {%- endfor %}
        cast(filename as {{ dbt.type_string() }}) as landing_file,
    from read_parquet(
        {{ sql_string_literal(pattern) }}, union_by_name = true, hive_partitioning = false, filename = true
    )
    {%- else %}
    select
        {%- for name, type in columns.items() %}
        cast(null as {{ type }}) as {{ name }},
        {%- endfor %}
        cast(null as {{ dbt.type_string() }}) as landing_file,
    where 1 = 0
    {%- endif %}
{%- endmacro %}

{#- The run id named by a landed file's folder (<landing>/probe/run_id=<id>/<table>.parquet):
    the run a row belongs to, whatever its run_id column says. -#}
{% macro probe_folder_run_id(landing_file) -%}
    regexp_extract({{ landing_file }}, 'run_id=([^/]*)/[^/]*$', 1)
{%- endmacro %}
