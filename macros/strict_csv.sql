{#- The strict CSV reader of the dbt seeds: every seed `dbt seed` or `dbt build` is about to
    load is checked first, then loaded by dbt-duckdb's own seed materialization through
    strict_csv_scan. A file that cannot be read as declared stops the run with one line
    naming the file, the row (1 = first data row) or line, the column, and what to do;
    nothing is coerced or padded. (The cross-lingual study's answer and item files are read
    by Python, concord_io.landing, whose strict reader gives the same messages.)

    Two parts, because DuckDB's CSV parser accepts a quote inside an unquoted field (`ab"c`)
    and pads a short row:
      - strict_csv_inspect + strict_csv_check_header: one DuckDB pass over the bytes
        (empty file, UTF-8 validity with the line of the first bad byte, UTF-16, NUL
        bytes) and the header (blank or repeated names, declared or required columns);
      - strict_csv_check_records: every record against the header in one regex pass,
        naming the first ragged row or stray quote. -#}


{#- ---------------------------------------------------------------- file level -------- -#}

{#- Size, encoding and the header record of a file, in one query; `with_content` also
    returns the text. Returns {'problem' (a one-line message, '' when none: missing, empty,
    not UTF-8, NUL bytes), 'header_text', 'content'}. -#}
{% macro strict_csv_inspect(path, label, with_content=false) %}
    {{ return(adapter.dispatch('strict_csv_inspect', 'concord')(path, label, with_content)) }}
{% endmacro %}

{% macro duckdb__strict_csv_inspect(path, label, with_content) %}
    {%- set p = path | replace("'", "''") -%}
    {%- if run_query("select count(*) from glob('" ~ p ~ "')").columns[0].values()[0] == 0 -%}
        {{ return({'problem': label ~ ': file not found (' ~ path ~ ')'}) }}
    {%- endif -%}
    {%- set query -%}
        with blob as (
            select size, try(decode(content)) as text from read_blob('{{ p }}')
        )
        select
            size,
            text is not null as is_utf8,
            coalesce(strpos(text, chr(0)), 0) > 0 as has_nul,
            {#- the first record (quoted fields may hold line breaks), looked for in the
                first MiB -#}
            regexp_extract(ltrim(left(text, 1048576), chr(65279)), '^(?:"(?:[^"]|"")*"|[^"\r\n])*') as header_text,
            {% if with_content %}ltrim(text, chr(65279)){% else %}null{% endif %} as content
        from blob
    {%- endset -%}
    {%- set row = run_query(query).rows[0] -%}
    {%- set problem = '' -%}
    {%- if row['size'] == 0 -%}
        {%- set problem = label ~ ': the file is empty (no header row). Nothing was loaded.' -%}
    {%- elif not row['is_utf8'] -%}
        {%- set problem = label ~ ': not UTF-8: the first byte that is not valid UTF-8 is on line '
            ~ strict_csv_first_bad_line(path) ~ '. Save the file as UTF-8 (Latin-1 and UTF-16 '
            ~ 'files are refused, not guessed).' -%}
    {%- elif row['has_nul'] -%}
        {%- set problem = label ~ ': contains NUL bytes (a UTF-16 file?). Save the file as UTF-8.' -%}
    {%- endif -%}
    {{ return({'problem': problem, 'header_text': row['header_text'], 'content': row['content']}) }}
{% endmacro %}

{#- The line of the first invalid UTF-8 byte: DuckDB's CSV reader, one field per line,
    records the line of every undecodable one. Only reached when the file is refused. -#}
{% macro strict_csv_first_bad_line(path) %}
    {%- set p = path | replace("'", "''") -%}
    {%- set query -%}
        drop table if exists concord_encoding_rejects;
        drop table if exists concord_encoding_scans;
        select count(*) from read_csv(
            '{{ p }}', header = false, columns = {'line': 'varchar'}, delim = chr(31),
            quote = '', escape = '', auto_detect = false, strict_mode = false,
            ignore_errors = true, store_rejects = true,
            rejects_table = 'concord_encoding_rejects', rejects_scan = 'concord_encoding_scans'
        );
        select coalesce(min(line)::varchar, '?') as line from concord_encoding_rejects
        where error_type = 'INVALID ENCODING';
    {%- endset -%}
    {{ return(run_query(query).columns[0].values()[0]) }}
{% endmacro %}

{#- The header's field names (a BOM and surrounding blanks removed, quotes undone), checked:
    no blank and no repeated name; `declared` (all, and only these, in any order: a seed's
    column_types) and `required` (at least these) columns. Returns {'problem', 'header'}. -#}
{% macro strict_csv_check_header(header_text, label, declared=none, required=none, delimiter=',') %}
    {%- set re = modules.re -%}
    {%- set d = re.escape(delimiter) -%}
    {%- set quoted = '"(?:[^"]|"")*"' -%}
    {%- set n_header = re.sub(quoted, '', header_text).count(delimiter) + 1 -%}
    {%- set header = [] -%}
    {%- for name in re.findall('(' ~ quoted ~ '|[^' ~ d ~ '"]*)(?:' ~ d ~ '|$)', header_text)[:n_header] -%}
        {%- set name = name.strip() -%}
        {%- if name.startswith('"') and name.endswith('"') and name | length > 1 -%}
            {%- set name = name[1:-1].replace('""', '"') -%}
        {%- endif -%}
        {%- do header.append(name) -%}
    {%- endfor -%}
    {%- set where = label ~ ', header row: ' -%}
    {%- set problems = [] -%}
    {%- set seen = [] -%}
    {%- for name in header -%}
        {%- if not name.strip() -%}
            {%- do problems.append(where ~ 'column ' ~ loop.index ~ ' has no name (empty or only '
                ~ 'spaces). Name every column.') -%}
        {%- elif name | lower in seen -%}
            {%- do problems.append(where ~ 'column ' ~ name ~ ' appears more than once (columns '
                ~ (seen.index(name | lower) + 1) ~ ' and ' ~ loop.index ~ '). Rename or drop one.') -%}
        {%- endif -%}
        {%- do seen.append(name | lower) -%}
    {%- endfor -%}
    {%- if not problems and declared -%}
        {%- set declared = declared | map('lower') | list -%}
        {%- set missing = declared | reject('in', seen) | list -%}
        {%- set undeclared = seen | reject('in', declared) | list -%}
        {%- if missing or undeclared -%}
            {%- set parts = [] -%}
            {%- if missing -%}
                {%- do parts.append('declared column(s) ' ~ missing | join(', ')
                    ~ ' missing from the header') -%}
            {%- endif -%}
            {%- if undeclared -%}
                {%- do parts.append('header column(s) ' ~ undeclared | join(', ')
                    ~ ' not declared in column_types') -%}
            {%- endif -%}
            {%- do problems.append(where ~ parts | join('; ') ~ ' (header: ' ~ seen | join(', ')
                ~ '; declared: ' ~ declared | join(', ')
                ~ '). Rename the column in the file or declare it.') -%}
        {%- endif -%}
    {%- endif -%}
    {%- set missing = (required or []) | reject('in', header) | list -%}
    {%- if not problems and missing -%}
        {%- do problems.append(where ~ 'missing column(s) ' ~ missing | join(', ')
            ~ ' (header: ' ~ header | join(', ') ~ ')') -%}
    {%- endif -%}
    {{ return({'problem': problems[0] if problems else '', 'header': header}) }}
{% endmacro %}


{#- ------------------------------------------------------- records, small files -------- -#}

{#- Every record of a small file against its header, in one regex pass (possessive
    repeats: no backtracking). Names the first ragged row, its line and the first missing
    or extra column, or a stray quote. Returns {'problem', 'mixed_line_endings'}. -#}
{% macro strict_csv_check_records(content, header, label, delimiter=',') %}
    {%- set re = modules.re -%}
    {%- set d = re.escape(delimiter) -%}
    {%- set quoted = '"(?:[^"]|"")*"' -%}
    {%- set field = '(?:' ~ quoted ~ '|[^' ~ d ~ '"\r\n]*)' -%}
    {%- set line_end = '(?:\r\n|\n|\r)' -%}
    {%- set n_header = header | length -%}
    {%- set record = field ~ '(?:' ~ d ~ field ~ '){' ~ (n_header - 1) ~ '}' -%}
    {%- set good = re.match('(?:(?:' ~ record ~ ')?' ~ line_end ~ ')*+', content).end() -%}
    {%- set rest = content[good:] -%}
    {%- set problem = '' -%}
    {%- if rest and not re.fullmatch(record, rest) -%}
        {%- set before = re.sub(quoted, '', content[:good]) -%}
        {%- set bad_row = before.count('\n') + before.count('\r') - before.count('\r\n') -%}
        {%- set bad_line = content[:good].count('\n') + 1 -%}
        {%- set where = label ~ ': row ' ~ bad_row ~ ' (line ' ~ bad_line ~ ')' -%}
        {%- set bad_text = re.match(field ~ '(?:' ~ d ~ field ~ ')*', rest).group(0) -%}
        {%- set n_fields = re.sub(quoted, '', bad_text).count(delimiter) + 1 -%}
        {%- set next_char = rest[bad_text | length: bad_text | length + 1] -%}
        {%- if next_char and next_char not in '\r\n' -%}
            {#- the fields stopped before the end of the line: a quote where none may be -#}
            {%- set column = header[n_fields - 1] if n_fields <= n_header
                else '(beyond the last column)' -%}
            {%- set problem = where ~ ', column ' ~ column ~ ': '
                ~ ('a quote inside an unquoted field' if next_char == '"'
                   else 'text after the closing quote of a quoted field')
                ~ '. Quote the whole field and double the quotes inside it ("ab""c"). '
                ~ 'Nothing was loaded.' -%}
        {%- else -%}
            {%- set column = header[n_fields] if n_fields < n_header
                else '(beyond the last column ' ~ header[-1] ~ ')' -%}
            {%- set problem = where ~ ' has ' ~ n_fields ~ ' field(s), the header has '
                ~ n_header ~ '; first missing or extra column: ' ~ column
                ~ '. Nothing was loaded.' -%}
        {%- endif -%}
    {%- endif -%}
    {%- set bare = re.sub(quoted, '', content) -%}
    {%- set crlf = bare.count('\r\n') -%}
    {%- set kinds = [crlf > 0, bare.count('\n') > crlf, bare.count('\r') > crlf] -%}
    {{ return({'problem': problem, 'mixed_line_endings': kinds | select | list | length > 1}) }}
{% endmacro %}

{#- A whole small file: bytes, header, every record. Returns {'problem', 'header'}. -#}
{% macro strict_csv_check_file(path, label, declared=none, required=none, delimiter=',') %}
    {%- set inspected = strict_csv_inspect(path, label, with_content=true) -%}
    {%- if inspected['problem'] -%}
        {{ return({'problem': inspected['problem'], 'header': []}) }}
    {%- endif -%}
    {%- set checked = strict_csv_check_header(
        inspected['header_text'], label, declared, required, delimiter) -%}
    {%- if not checked['problem'] -%}
        {%- do checked.update({'problem': strict_csv_check_records(
            inspected['content'], checked['header'], label, delimiter)['problem']}) -%}
    {%- endif -%}
    {{ return(checked) }}
{% endmacro %}

{#- The checked header of a seed file about to be loaded (its records were checked by
    check_selected_seed_files); raises on the first problem. -#}
{% macro strict_csv_header(path, label, required=none) %}
    {%- set inspected = strict_csv_inspect(path, label) -%}
    {%- if inspected['problem'] -%}
        {{ exceptions.raise_compiler_error(inspected['problem']) }}
    {%- endif -%}
    {%- set checked = strict_csv_check_header(inspected['header_text'], label, required=required) -%}
    {%- if checked['problem'] -%}
        {{ exceptions.raise_compiler_error(checked['problem']) }}
    {%- endif -%}
    {{ return(checked['header']) }}
{% endmacro %}


{#- ---------------------------------------------------------------- scanning -------- -#}

{#- A relation over one checked CSV file: its `header` columns as text, in file order, plus
    `source_row` (1 = first data row); an empty cell is null, as dbt-duckdb loads seeds.
    The file was checked whole first, so DuckDB's parser runs without strict mode (which
    would refuse mixed line endings). -#}
{% macro strict_csv_scan(path, header) %}
    {{ return(adapter.dispatch('strict_csv_scan', 'concord')(path, header)) }}
{% endmacro %}

{% macro duckdb__strict_csv_scan(path, header) %}
    {%- set names = [] -%}
    {%- for name in header -%}
        {%- do names.append("'" ~ name | replace("'", "''") ~ "'") -%}
    {%- endfor -%}
    (
        {#- (an alias on `with ordinality` is ambiguous in DuckDB 2.0: none here) #}
        select * exclude (ordinality), ordinality::bigint as source_row
        from read_csv(
            '{{ path | replace("'", "''") }}',
            header = true,
            auto_detect = false,
            delim = ',',
            quote = '"',
            escape = '"',
            strict_mode = false,
            columns = { {%- for name in names %}{{ name }}: 'varchar'{{ ', ' if not loop.last }}{% endfor -%} }
        ) with ordinality
    )
{%- endmacro %}


{#- ---------------------------------------------------------------- dbt seeds -------- -#}

{#- on-run-start: every seed `dbt seed` or `dbt build` is about to load is checked first
    (dbt reads a seed with agate before any hook of the seed runs: an empty file fails with
    "a callable raised a StopIteration exception", a short row is padded with nulls, a
    renamed column loads without complaint). -#}
{% macro check_selected_seed_files() %}
    {%- if execute and flags.WHICH in ('seed', 'build') -%}
        {%- set problems = [] -%}
        {%- for node in graph.nodes.values()
            if node.resource_type == 'seed' and node.unique_id in selected_resources -%}
            {%- set checked = strict_csv_check_file(
                node.root_path ~ '/' ~ node.original_file_path,
                'seed ' ~ node.name ~ ' (' ~ node.original_file_path ~ ')',
                declared=(node.config.column_types or {}).keys() | list,
                delimiter=node.config.get('delimiter', ',')
            ) -%}
            {%- if checked['problem'] -%}
                {%- do problems.append(checked['problem']) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- if problems -%}
            {#- every refused seed, one line each, before anything is loaded -#}
            {{ exceptions.raise_compiler_error(problems | join('\n')) }}
        {%- endif -%}
    {%- endif -%}
    select 1
{% endmacro %}

{#- dbt-duckdb's seed loader, through the strict reader: the file was checked by
    check_selected_seed_files, so it is read without strict mode (which would refuse mixed
    line endings) and inserted by column name (a reordered header loads right). -#}
{% macro duckdb__load_csv_rows(model, agate_table) %}
    {%- set path = adapter.get_seed_file_path(model) -%}
    {%- set header = strict_csv_header(path, 'seed ' ~ model.name) -%}
    {%- set sql -%}
        insert into {{ this.render() }} by name
        select * exclude (source_row)
        from {{ strict_csv_scan(path, header) }}
    {%- endset -%}
    {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
    {{ return(sql) }}
{% endmacro %}
