{#- Reading one table of the landing folder (var landing_dir: env CONCORD_LANDING_DIR, default
    warehouse/landing): <landing>/<area>/<key>=*/<table>.parquet. The landing is written by
    Python, never by dbt: the probe's runs (area probe, probe/landing.py), the seed files
    (area seeds, one folder per file: seed=<table>) and the cross-lingual study's runs and
    items (areas mcq and items; both by concord_io.landing, which the dbt-duckdb plugin runs
    before `dbt build`: docs/landing.md).

    Each folder (a run, a task's items) is immutable and appears whole or not at all; hidden
    .tmp-/.old-/.removed- folders of unfinished, replaced or removed folders do not match
    <key>=* and are never read. Before anything is landed there is no file at all:
    read_parquet would fail on an empty glob, so the macro checks the glob first and returns
    an empty relation with the same columns and types, which keeps `dbt build` working (the
    area's marts are empty).

    The boundary is checked before anything is read: a folder without one of the tables, or
    a file without one of the columns, stops the build naming the folder, file and column.
    Every row carries landing_file, the file it came from, so the run id in the data can be
    checked against its folder's name (int_probe_runs_checked).

    columns: a mapping column name -> SQL type; every column is cast to its type. -#}

{#- The folder key of each area: <landing>/<area>/<key>=<value>/ -#}
{% macro landing_folder_key(area) -%}
    {%- set keys = {'probe': 'run_id', 'mcq': 'run_id', 'items': 'task', 'seeds': 'seed'} -%}
    {%- if area not in keys -%}
        {{ exceptions.raise_compiler_error(
            'landing: no area ' ~ area ~ ' (areas: ' ~ keys.keys() | join(', ') ~ ')') }}
    {%- endif -%}
    {{ return(keys[area]) }}
{%- endmacro %}

{#- What to do about a folder that lacks a table or a column: the area's writer lands it again. -#}
{% macro landing_remedy(area) -%}
    {%- if area == 'probe' -%}
        {{ return('remove the folder (python -m probe runs remove <run id>) or land the run again') }}
    {%- else -%}
        {{ return('land again (concord land, or dbt build, which lands first): the reader '
            ~ 'writes every folder of an older landing format again') }}
    {%- endif -%}
{%- endmacro %}

{#- The folders that hold the table: every folder of the area, but a seed file's own
    (seeds/seed=<table>), one table each. -#}
{% macro landing_folders_pattern(area, table_name) -%}
    {{ var('landing_dir') }}/{{ area }}/{{ landing_folder_key(area) }}={{
        table_name if area == 'seeds' else '*' }}
{%- endmacro %}

{% macro landing_pattern(area, table_name) -%}
    {{ landing_folders_pattern(area, table_name) }}/{{ table_name }}.parquet
{%- endmacro %}

{% macro read_landing(area, table_name, columns) -%}
    {{ return(adapter.dispatch('read_landing', 'concord')(area, table_name, columns)) }}
{%- endmacro %}

{% macro default__read_landing(area, table_name, columns) -%}
    {{ exceptions.raise_compiler_error(
        'read_landing has no implementation for adapter ' ~ adapter.type()
        ~ ': add one that reads ' ~ landing_pattern(area, table_name)
    ) }}
{%- endmacro %}

{% macro duckdb__check_landing(area, table_name, columns, n_files) -%}
    {#- every folder that holds any landed file holds this table's file (compared by the
        folder's own name: a glob without a wildcard, a seed's, gives a relative path as
        written, one with a wildcard may give it resolved) -#}
    {%- set folders = run_query(
        "select distinct regexp_extract(file, '^(.*)/[^/]*$', 1) from glob("
        ~ sql_string_literal(landing_folders_pattern(area, table_name) ~ "/*.parquet") ~ ") "
        ~ "where regexp_extract(file, '([^/]*)/[^/]*$', 1) not in ("
        ~ "select regexp_extract(file, '([^/]*)/[^/]*$', 1) from glob("
        ~ sql_string_literal(landing_pattern(area, table_name)) ~ ")) order by 1"
    ) -%}
    {%- for row in folders.rows -%}
        {{ exceptions.raise_compiler_error(
            area ~ ' landing: folder ' ~ row[0] ~ ' has no ' ~ table_name ~ '.parquet; '
            ~ landing_remedy(area)
        ) }}
    {%- endfor -%}
    {%- if n_files == 0 -%}{{ return('') }}{%- endif -%}
    {#- every file has every column (parquet_schema lists nested fields too: a superset) -#}
    {%- set names = [] -%}
    {%- for name in columns -%}{%- do names.append("'" ~ name ~ "'") -%}{%- endfor -%}
    {%- set missing = run_query(
        "with expected as (select unnest([" ~ names | join(', ') ~ "]) as name), "
        ~ "files as (select distinct file_name from parquet_schema("
        ~ sql_string_literal(landing_pattern(area, table_name)) ~ ")), "
        ~ "present as (select file_name, name from parquet_schema("
        ~ sql_string_literal(landing_pattern(area, table_name)) ~ ")) "
        ~ "select files.file_name, string_agg(expected.name, ', ' order by expected.name) "
        ~ "from files cross join expected "
        ~ "where not exists (select 1 from present where present.file_name = files.file_name "
        ~ "and present.name = expected.name) group by files.file_name order by 1"
    ) -%}
    {%- for row in missing.rows -%}
        {{ exceptions.raise_compiler_error(
            area ~ ' landing: ' ~ row[0] ~ ' lacks column(s) ' ~ row[1]
            ~ '; it was not written by this version: ' ~ landing_remedy(area)
        ) }}
    {%- endfor -%}
{%- endmacro %}

{% macro duckdb__read_landing(area, table_name, columns) -%}
    {%- set pattern = landing_pattern(area, table_name) -%}
    {%- set n_files = 0 -%}
    {%- if execute and config.get('materialized') == 'view' and not pattern.startswith('/') -%}
        {#- a view reads the landing whenever it is queried, from any working folder: its
            path is the project folder's (the plugin's file_search_path), not dbt's cwd -#}
        {%- set root = run_query("select current_setting('file_search_path')") -%}
        {%- set pattern = root.columns[0].values()[0] ~ '/' ~ pattern -%}
    {%- endif -%}
    {%- if execute -%}
        {%- set found = run_query("select count(*) from glob(" ~ sql_string_literal(pattern) ~ ")") -%}
        {%- set n_files = found.columns[0].values()[0] -%}
        {%- do duckdb__check_landing(area, table_name, columns, n_files) -%}
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

{#- The run id named by a landed file's folder (<landing>/<area>/run_id=<id>/<table>.parquet):
    the run a row belongs to, whatever its run_id column says. -#}
{% macro probe_folder_run_id(landing_file) -%}
    regexp_extract({{ landing_file }}, 'run_id=([^/]*)/[^/]*$', 1)
{%- endmacro %}

{#- The columns a landed table is read as: its source table's declared columns (the
    sources yml of its staging folder, their one declaration, which its writer writes:
    concord_common.landing_declaration), in their order, each Arrow data_type as the
    engine's SQL type (lists as DuckDB writes them; spark_type_of says them in Spark's
    words); but a column declared `staged: false` (kept in the landing, read by no
    model). -#}
{% macro landing_columns(source_name, table_name) -%}
    {%- set sql_types = {
        'string': dbt.type_string(),
        'int64': dbt.type_bigint(),
        'int32': dbt.type_int(),
        'int16': dbt.type_int(),
        'float64': 'double',
        'timestamp[us, UTC]': 'timestamp with time zone',
        'list<int32>': 'integer[]',
        'list<int64>': 'bigint[]',
        'list<float64>': 'double[]',
        'list<string>': 'varchar[]',
    } -%}
    {%- set node = (graph.get('sources') or {}).get(
        'source.' ~ project_name ~ '.' ~ source_name ~ '.' ~ table_name) -%}
    {%- set columns = {} -%}
    {%- for name, column in (node.columns if node else {}).items() -%}
        {%- if (column.config.meta or {}).get('staged', true) -%}
            {%- do columns.update({name: sql_types[column.data_type]}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if execute and not columns -%}
        {{ exceptions.raise_compiler_error(
            'source ' ~ source_name ~ '.' ~ table_name ~ ' declares no columns') }}
    {%- endif -%}
    {{ return(columns) }}
{%- endmacro %}

{#- A seed file's landed table (<landing>/seeds/seed=<table>/<table>.parquet), its columns
    as its source table declares them (data_type: their one declaration, which the reader
    landed them as; concord_io.landing.schemas) with its provenance. In a unit test that
    gives the source's rows, those rows. -#}
{% macro read_landed_seed(source_name, table_name) -%}
    {%- set relation = source(source_name, table_name) -%}
    {%- if relation.is_cte -%}
        select * from {{ relation }}
    {%- else -%}
        {%- set node = (graph.get('sources') or {}).get(
            'source.' ~ project_name ~ '.' ~ source_name ~ '.' ~ table_name) -%}
        {%- set columns = {} -%}
        {%- for name, column in (node.columns if node else {}).items() -%}
            {%- do columns.update({name: column.data_type}) -%}
        {%- endfor -%}
        {%- if execute and not columns -%}
            {{ exceptions.raise_compiler_error(
                'source ' ~ source_name ~ '.' ~ table_name ~ ' declares no columns') }}
        {%- endif -%}
        {{ read_landing('seeds', table_name, with_landing_provenance(columns)) }}
    {%- endif -%}
{%- endmacro %}

{#- `columns`, then the provenance that every row table of the cross-lingual landing but the
    quarantine, and every seed file's table, ends with (concord_io.landing.schemas.PROVENANCE):
    the file and row a record was read from and the file's content hash. -#}
{% macro with_landing_provenance(columns) -%}
    {%- set all = {} -%}
    {%- do all.update(columns) -%}
    {%- do all.update({
        'source_file': dbt.type_string(),
        'source_row': dbt.type_bigint(),
        'content_hash': dbt.type_string(),
    }) -%}
    {{ return(all) }}
{%- endmacro %}
