{#- The cross-lingual study's registered files. A registry seed says which files exist and
    what they are; a file and its registry line must come together, so a registered file
    that is missing, a file nobody registered, a repeated line or a blank cell stops the
    run naming the file. Registry `file` cells are bare file names inside the registry's
    folder: a path (absolute, or with a folder or `..`) is refused, so nothing outside the
    project's folders is read by accident. -#}

{#- The registry's lines as a list of dicts, checked against the folder. `pattern` is the
    glob of the files the folder may hold. Empty before the registry is loaded (parsing,
    linting). -#}
{% macro mcq_registered_files(registry, directory, registry_name, columns, pattern='*.csv') %}
    {%- if not execute or load_relation(registry) is none -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set table = run_query('select * from ' ~ registry) -%}
    {%- set lines = [] -%}
    {%- for row in table.rows -%}
        {%- set line = {} -%}
        {%- for column in columns -%}
            {%- set value = row[column] -%}
            {%- if value is none or (value | string | trim) == '' -%}
                {{ exceptions.raise_compiler_error(
                    registry_name ~ ': line for ' ~ (row['file'] | string) ~ ' has no ' ~ column
                    ~ '. Fill it in.'
                ) }}
            {%- endif -%}
            {%- do line.update({column: value | string}) -%}
        {%- endfor -%}
        {%- if line['file'].startswith('/') or '/' in line['file'] or '\\' in line['file']
            or line['file'] in ('.', '..') or ':' in line['file'][:2] -%}
            {{ exceptions.raise_compiler_error(
                registry_name ~ ': file ' ~ line['file'] ~ ' is a path; registry files are '
                ~ 'bare file names inside ' ~ directory ~ ' (no folder, no absolute path). '
                ~ 'Put the file in that folder and register its name.'
            ) }}
        {%- endif -%}
        {%- do lines.append(line) -%}
    {%- endfor -%}
    {%- set files = lines | map(attribute='file') | list -%}
    {%- set repeated = [] -%}
    {%- for file in files if files.count(file) > 1 and file not in repeated -%}
        {%- do repeated.append(file) -%}
    {%- endfor -%}
    {%- if repeated -%}
        {{ exceptions.raise_compiler_error(
            registry_name ~ ': file(s) registered more than once: ' ~ repeated | sort | join(', ')
        ) }}
    {%- endif -%}
    {%- set listed = mcq_list_files(directory, pattern, recursive=false) -%}
    {%- set not_found = files | reject('in', listed) | sort | list -%}
    {%- if not_found -%}
        {{ exceptions.raise_compiler_error(
            registry_name ~ ': registered file(s) not found in ' ~ directory ~ ': '
            ~ not_found | join(', ')
        ) }}
    {%- endif -%}
    {%- set unregistered = listed | reject('in', files) | list -%}
    {%- if unregistered -%}
        {{ exceptions.raise_compiler_error(
            directory ~ ': file(s) with no line in ' ~ registry_name ~ ': '
            ~ unregistered | join(', ') ~ ' (add a line to ' ~ registry_name
            ~ '.csv, or remove the file)'
        ) }}
    {%- endif -%}
    {{ return(lines) }}
{% endmacro %}

{#- The files in `directory` matching `pattern`: bare names, or (recursive) paths relative
    to it, of answer files only (csv, parquet, jsonl, json), sorted. -#}
{% macro mcq_list_files(directory, pattern, recursive) %}
    {{ return(adapter.dispatch('mcq_list_files', 'concord')(directory, pattern, recursive)) }}
{% endmacro %}

{% macro duckdb__mcq_list_files(directory, pattern, recursive) %}
    {%- set root = directory | replace("'", "''") -%}
    {%- set query -%}
        select {% if recursive -%}
            substr(file, length('{{ root }}') + 2)
        {%- else -%}
            regexp_extract(file, '[^/\\]+$')
        {%- endif %} as name
        from glob('{{ root }}/{{ pattern | replace("'", "''") }}')
        where regexp_matches(file, '\.(csv|parquet|jsonl|json)$')
        order by name
    {%- endset -%}
    {{ return(run_query(query).columns[0].values() | list) }}
{% endmacro %}

{#- The md5 of a file's content: {'content_md5'} and, on DuckDB, the file's stat when it
    was read (size, last_modified_us, inspected_at_us: for mcq_cached_inspections). -#}
{% macro mcq_file_md5(path) %}
    {{ return(adapter.dispatch('mcq_file_md5', 'concord')(path)) }}
{% endmacro %}

{% macro duckdb__mcq_file_md5(path) %}
    {%- set row = run_query(
        'select md5(content) as content_md5, size, epoch_us(last_modified) as last_modified_us,'
        ~ " epoch_us(current_timestamp) as inspected_at_us from read_blob('"
        ~ path | replace("'", "''") ~ "')"
    ).rows[0] -%}
    {{ return({'problem': '', 'content_md5': row['content_md5'], 'size': row['size'],
               'last_modified_us': row['last_modified_us'],
               'inspected_at_us': row['inspected_at_us']}) }}
{% endmacro %}

{#- A text literal. -#}
{% macro mcq_literal(value) -%}
    '{{ value | string | replace("'", "''") }}'
{%- endmacro %}

{#- Post-hook: every file registered in `registry` gave at least one row. -#}
{% macro mcq_assert_files_have_rows(relation, registry) %}
    {%- if execute -%}
        {%- set query -%}
            select file from {{ registry }}
            where file not in (select distinct source_file from {{ relation }})
            order by file
        {%- endset -%}
        {%- set empty = run_query(query).columns[0].values() | list -%}
        {%- if empty -%}
            {{ exceptions.raise_compiler_error(
                empty | join(', ') ~ ': the file has a header but no data rows. Add its rows '
                ~ 'or remove the file and its registry line.'
            ) }}
        {%- endif -%}
    {%- endif -%}
    select 1
{% endmacro %}

{#- The answer sources registry (mcq_answer_sources): long-format files (Parquet, JSONL or
    CSV) and lm-evaluation-harness sample logs, under `directory`. A registry `file` is a
    path relative to that folder, with `*` wildcards (the harness stamps its file names
    with the date): no absolute path, no `..`. Every line must match at least one file, and
    every answer file in the folder must be matched by a line. Returns the lines, each with
    its `paths` (relative, sorted). -#}
{% macro mcq_registered_sources(registry, directory, registry_name) %}
    {%- if not execute or load_relation(registry) is none -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set table = run_query('select * from ' ~ registry) -%}
    {%- set root = directory | replace("'", "''") -%}
    {%- set listed = mcq_list_files(directory, '**', recursive=true) -%}
    {%- set lines = [] -%}
    {%- set claimed = [] -%}
    {%- for row in table.rows -%}
        {%- set line = {} -%}
        {%- for column in table.column_names -%}
            {%- do line.update({column: (row[column] | string | trim) if row[column] is not none else ''}) -%}
        {%- endfor -%}
        {%- for column in ['file', 'format'] if not line[column] -%}
            {{ exceptions.raise_compiler_error(
                registry_name ~ ': line for ' ~ line['file'] ~ ' has no ' ~ column ~ '. Fill it in.') }}
        {%- endfor -%}
        {%- set file = line['file'] -%}
        {%- if file.startswith('/') or file.startswith('\\') or ':' in file[:2]
            or '..' in file.replace('\\', '/').split('/') -%}
            {{ exceptions.raise_compiler_error(
                registry_name ~ ': file ' ~ file ~ ' is not inside ' ~ directory ~ '; registry '
                ~ 'files are paths relative to that folder (no absolute path, no ..). Put the '
                ~ 'file in that folder and register its relative path.'
            ) }}
        {%- endif -%}
        {%- if line['format'] not in ('long', 'lm_eval') -%}
            {{ exceptions.raise_compiler_error(
                registry_name ~ ': ' ~ file ~ ': format ' ~ line['format']
                ~ ' is not long or lm_eval') }}
        {%- endif -%}
        {%- if line['format'] == 'lm_eval' -%}
            {%- for column in ['model', 'run', 'language'] if not line[column] -%}
                {{ exceptions.raise_compiler_error(
                    registry_name ~ ': ' ~ file ~ ': an lm_eval line needs a ' ~ column
                    ~ ' (the sample logs do not say it)') }}
            {%- endfor -%}
        {%- endif -%}
        {%- set pattern = '^' ~ modules.re.escape(file).replace('\\*', '[^/]*') ~ '$' -%}
        {%- set paths = [] -%}
        {%- for path in listed if modules.re.match(pattern, path) -%}
            {%- do paths.append(path) -%}
        {%- endfor -%}
        {%- if not paths -%}
            {{ exceptions.raise_compiler_error(
                registry_name ~ ': registered file(s) not found in ' ~ directory ~ ': ' ~ file) }}
        {%- endif -%}
        {%- do claimed.extend(paths) -%}
        {%- do line.update({'paths': paths}) -%}
        {%- do lines.append(line) -%}
    {%- endfor -%}
    {%- set repeated = [] -%}
    {%- for path in claimed if claimed.count(path) > 1 and path not in repeated -%}
        {%- do repeated.append(path) -%}
    {%- endfor -%}
    {%- if repeated -%}
        {{ exceptions.raise_compiler_error(
            registry_name ~ ': file(s) matched by more than one line: ' ~ repeated | join(', ')) }}
    {%- endif -%}
    {%- set unregistered = listed | reject('in', claimed) | list -%}
    {%- if unregistered -%}
        {{ exceptions.raise_compiler_error(
            directory ~ ': file(s) with no line in ' ~ registry_name ~ ': '
            ~ unregistered | join(', ') ~ ' (add a line to ' ~ registry_name
            ~ '.csv, or remove the file)'
        ) }}
    {%- endif -%}
    {{ return(lines) }}
{% endmacro %}


{#- ------------------------------------------------------------ incremental builds -------- -#}

{#- Answer files are append-only inputs: a staging model keeps the rows of every file it has
    read with the file's version (`<content md5>|<registry line>`), reads only the files
    whose version it does not hold (new or changed: delete+insert on source_file replaces a
    changed file's rows), and mcq_delete_stale_files drops the rows of files no longer
    there. `--full-refresh` reads everything again. -#}

{#- The files an incremental staging model must read now: those of `versions`
    ({source_file: file_version}) whose version it does not hold. On an incremental run it
    first deletes the rows of files that are gone (in the model's own run: `dbt compile`
    and the docs never change the table). -#}
{% macro mcq_files_to_read(versions) %}
    {%- if not (execute and is_incremental()) -%}
        {{ return(versions.keys() | list) }}
    {%- endif -%}
    {%- set loaded = {} -%}
    {%- for row in run_query('select distinct source_file, file_version from ' ~ this).rows -%}
        {%- do loaded.update({row[0]: row[1]}) -%}
    {%- endfor -%}
    {%- set gone = loaded.keys() | reject('in', versions.keys() | list) | list -%}
    {%- if gone and flags.WHICH in ('run', 'build') -%}
        {%- set names = [] -%}
        {%- for file in gone -%}
            {%- do names.append(mcq_literal(file)) -%}
        {%- endfor -%}
        {%- do run_query('delete from ' ~ this ~ ' where source_file in (' ~ names | join(', ') ~ ')') -%}
    {%- endif -%}
    {%- set to_read = [] -%}
    {%- for file, version in versions.items() if loaded.get(file) != version -%}
        {%- do to_read.append(file) -%}
    {%- endfor -%}
    {{ return(to_read) }}
{% endmacro %}

{#- The checks of an incremental model keyed by source_file and file_version look at the
    rows of the files it has just read, not at every row it holds (at 100 000 items x 20
    files, 3 s a build for the misaligned-rows check alone). The pre-hook
    mcq_remember_files_held keeps the file versions held before the build in
    <model>__files_held (none on a full build), mcq_rows_just_read is the model's rows of
    other versions, and mcq_forget_files_held, the last post-hook, drops the table. On
    Spark the model is a table and its checks read every row. -#}
{% macro mcq_files_held() %}
    {{ return(api.Relation.create(
        database=this.database, schema=this.schema, identifier=this.identifier ~ '__files_held')) }}
{% endmacro %}

{% macro mcq_remember_files_held() %}
    {%- if model.config.materialized != 'incremental' -%}
        select 1
    {%- else -%}
        create or replace table {{ mcq_files_held() }} as
        {% if is_incremental() -%}
        select distinct source_file, file_version from {{ this }}
        {%- else -%}
        select
            cast(null as {{ dbt.type_string() }}) as source_file,
            cast(null as {{ dbt.type_string() }}) as file_version
        where false
        {%- endif %}
    {%- endif -%}
{% endmacro %}

{% macro mcq_rows_just_read() %}
    {%- if model.config.materialized != 'incremental' -%}
        {{ return(this | string) }}
    {%- endif -%}
    {{ return('(select * from ' ~ this ~ ' where (source_file, file_version) not in ('
        ~ 'select source_file, file_version from ' ~ mcq_files_held() ~ '))') }}
{% endmacro %}

{#- The wide rows among `rows_just_read` whose languages are not the same item: their domain
    labels, translated to English, differ (a label with no translation is the unknown-domain
    check's). Row by row on the staging rows, each of which holds every language of one
    item, instead of grouping the normalised answers by row: at 100 000 items x 20 files
    that aggregate took 2.8 s of the normalised model's 9.4 s. -#}
{% macro mcq_misaligned_wide_rows(answer_files, translations, rows_just_read) %}
    {%- set languages = var('mcq_languages') | sort -%}
    {%- set domains = [] -%}
    {%- for lang in languages -%}
        {%- do domains.append('domain_' ~ lang) -%}
    {%- endfor -%}
    {%- set query -%}
        with files_just_read as (

            select distinct source_file from {{ rows_just_read }} as answers

        ),

        translated as (

            select
                answer_files.source_file,
                answer_files.source_row,
                {%- for lang in languages %}
                translation_{{ lang }}.domain_en as domain_{{ lang }}{{ ',' if not loop.last }}
                {%- endfor %}
            from {{ answer_files }} as answer_files
            {%- for lang in languages %}
            left join {{ translations }} as translation_{{ lang }}
                on translation_{{ lang }}.language = '{{ lang }}'
                and answer_files.domain_{{ lang }} = translation_{{ lang }}.domain_label
            {%- endfor %}
            where answer_files.source_file in (select source_file from files_just_read)

        )

        {#- least and greatest skip nulls, as did the min and max they replace -#}
        select
            source_file,
            source_row,
            concat_ws(', '
                {%- for lang in languages %}, '{{ lang }}=' || domain_{{ lang }}{% endfor -%}
            ) as domains
        from translated
        where least({{ domains | join(', ') }}) <> greatest({{ domains | join(', ') }})
        order by source_file, source_row
    {%- endset -%}
    {{ return(query) }}
{% endmacro %}

{% macro mcq_forget_files_held() %}
    {%- if model.config.materialized != 'incremental' -%}
        select 1
    {%- else -%}
        drop table if exists {{ mcq_files_held() }}
    {%- endif -%}
{% endmacro %}

{#- Post-hook of an incremental model keyed by source_file: delete the rows of files that
    are no longer in `current`. -#}
{% macro mcq_delete_removed_files(relation, current) %}
    {{ return(adapter.dispatch('mcq_delete_removed_files', 'concord')(relation, current)) }}
{% endmacro %}

{% macro default__mcq_delete_removed_files(relation, current) %}
    delete from {{ relation }}
    where source_file not in (select distinct source_file from {{ current }})
{% endmacro %}


{#- ------------------------------------------------------------ unchanged files -------- -#}

{#- Learning a file's version means reading all of it (the md5; for a wide file also the
    UTF-8, NUL and line-ending checks): 1.4 GB at 100 000 items x 20 files, every build. So
    an incremental staging model keeps what inspecting each file found (md5; for a CSV
    file its header record and whether it has a carriage return) in
    <model>__file_inspections, with the file's size and modification time when it was read,
    and reads a file again only when its size or modification time changed: the "stat
    data" rule of git's index and rsync's quick check. A file modified in the second its
    inspection began is inspected again (git's "racily clean" entries: DuckDB gives
    modification times to the second, so a change later in that second would not show).
    Only files that passed are kept: a bad file is inspected every time and gives the same
    message. `--full-refresh` (and a first build) inspects every file. DuckDB only: on Spark
    the models are tables and every file is inspected every build. -#}

{#- {path: inspection} for the `paths` unchanged since their cached inspection. -#}
{% macro mcq_cached_inspections(paths) %}
    {{ return(adapter.dispatch('mcq_cached_inspections', 'concord')(paths)) }}
{% endmacro %}

{% macro default__mcq_cached_inspections(paths) %}
    {{ return({}) }}
{% endmacro %}

{% macro duckdb__mcq_cached_inspections(paths) %}
    {%- set cache = mcq_inspection_cache() -%}
    {%- if not (execute and is_incremental() and paths) or load_relation(cache) is none -%}
        {{ return({}) }}
    {%- endif -%}
    {%- set names = [] -%}
    {%- for path in paths -%}
        {%- do names.append(mcq_literal(path)) -%}
    {%- endfor -%}
    {#- read_blob without `content` reads the stat only (0.002 s for an 800 MB file) -#}
    {%- set query -%}
        select cached.path, cached.content_md5, cached.header_text, cached.has_cr
        from read_blob([{{ names | join(', ') }}]) as file
        inner join {{ cache }} as cached
            on file.filename = cached.path
            and file.size = cached.size
            and epoch_us(file.last_modified) = cached.last_modified_us
        where epoch_us(file.last_modified)
            < cached.inspected_at_us - cached.inspected_at_us % 1000000
    {%- endset -%}
    {%- set found = {} -%}
    {%- for row in run_query(query).rows -%}
        {%- do found.update({row['path']: {'problem': '', 'content_md5': row['content_md5'],
            'header_text': row['header_text'], 'has_cr': row['has_cr']}}) -%}
    {%- endfor -%}
    {{ return(found) }}
{% endmacro %}

{#- Keep the new `inspections` ({path: inspection}) and forget files no longer in `paths`;
    in the model's own run (`dbt compile` and the docs leave the cache alone). -#}
{% macro mcq_store_inspections(inspections, paths) %}
    {{ return(adapter.dispatch('mcq_store_inspections', 'concord')(inspections, paths)) }}
{% endmacro %}

{% macro default__mcq_store_inspections(inspections, paths) %}
{% endmacro %}

{% macro duckdb__mcq_store_inspections(inspections, paths) %}
    {%- if not (execute and flags.WHICH in ('run', 'build')) -%}
        {{ return('') }}
    {%- endif -%}
    {%- set cache = mcq_inspection_cache() -%}
    {%- set current, renewed = [], [] -%}
    {%- for path in paths -%}
        {%- do current.append(mcq_literal(path)) -%}
    {%- endfor -%}
    {%- for path in inspections -%}
        {%- do renewed.append(mcq_literal(path)) -%}
    {%- endfor -%}
    {%- set rows = [] -%}
    {%- for path, found in inspections.items() -%}
        {%- do rows.append('(' ~ [
            mcq_literal(path), found['size'], found['last_modified_us'], found['inspected_at_us'],
            mcq_literal(found['content_md5']),
            mcq_literal(found['header_text']) if found.get('header_text') is not none else 'null',
            found['has_cr'] if found.get('has_cr') is not none else 'null'] | join(', ') ~ ')') -%}
    {%- endfor -%}
    {%- set sql -%}
        create table if not exists {{ cache }} (
            path varchar primary key,
            size bigint,
            last_modified_us bigint,
            inspected_at_us bigint,
            content_md5 varchar,
            header_text varchar,
            has_cr boolean
        );
        delete from {{ cache }}
        where {% if current %}path not in ({{ current | join(', ') }}){% else %}true{% endif %}
            {%- if renewed %} or path in ({{ renewed | join(', ') }}){% endif %};
        {%- if rows %}
        insert into {{ cache }} values {{ rows | join(', ') }};
        {%- endif %}
    {%- endset -%}
    {%- do run_query(sql) -%}
{% endmacro %}

{#- The cache of the model being built. -#}
{% macro mcq_inspection_cache() %}
    {{ return(api.Relation.create(
        database=this.database, schema=this.schema, identifier=this.identifier ~ '__file_inspections')) }}
{% endmacro %}
