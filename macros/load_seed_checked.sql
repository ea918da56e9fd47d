{#- Seeds are loaded only after their file has been checked, so that a bad seed stops the
    build with a message naming the seed, the row and the column instead of loading wrong.

    dbt reads a seed with agate before anything else: an empty file fails with "a callable
    raised a StopIteration exception", a row with an extra field with a 0-based row count,
    and a short row is silently padded with nulls; dbt-duckdb then COPYs the file by
    position and answers mixed line endings with "Error when sniffing file", naming no row;
    a renamed or missing column loads without complaint and only breaks (or, for
    same-typed columns, silently changes) the models downstream. So the seed
    materialization below (dbt's own, for duckdb) first runs check_seed_file on the raw
    text:
      - the file is not empty;
      - the header against the seed's declared column_types: every declared column
        present, no undeclared column (a reordered header is fine: seeds are always loaded
        in full, and the table takes its columns from the header);
      - every row has as many fields as the header (quoted fields may hold delimiters,
        quotes and newlines), naming the first ragged row (1 = first data row), its line
        and the first missing or extra column.
    A UTF-8 BOM and CRLF line endings load as usual (COPY); a file that mixes line endings
    loads through dbt's row inserts (the agate rows, read by Python's csv module). -#}

{% materialization seed, adapter='duckdb' %}

  {%- set identifier = model['alias'] -%}
  {%- set full_refresh_mode = (should_full_refresh()) -%}

  {%- set old_relation = adapter.get_relation(database=database, schema=schema, identifier=identifier) -%}

  {%- set exists_as_table = (old_relation is not none and old_relation.is_table) -%}
  {%- set exists_as_view = (old_relation is not none and old_relation.is_view) -%}

  {%- set grant_config = config.get('grants') -%}
  {#- Concord: the raw file is checked before dbt reads it -#}
  {%- set checked = check_seed_file(model, adapter.get_seed_file_path(model)) -%}
  {%- set agate_table = load_agate_table() -%}

  {%- do store_result('agate_table', response='OK', agate_table=agate_table) -%}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}

  -- `BEGIN` happens here:
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  -- build model
  {% set create_table_sql = "" %}
  {% if exists_as_view %}
    {{ exceptions.raise_compiler_error("Cannot seed to '{}', it is a view".format(old_relation.render())) }}
  {% elif exists_as_table %}
    {% set create_table_sql = reset_csv_table(model, full_refresh_mode, old_relation, agate_table) %}
  {% else %}
    {% set create_table_sql = create_csv_table(model, agate_table) %}
  {% endif %}

  {% set code = 'CREATE' if full_refresh_mode else 'INSERT' %}
  {% set rows_affected = (agate_table.rows | length) %}
  {% set sql = "" %}
  {% if rows_affected > 0 and checked.mixed_line_endings %}
    {#- DuckDB's COPY refuses mixed line endings: insert the rows dbt read instead -#}
    {% set sql = _insert_seed_rows(model, agate_table) %}
  {% elif rows_affected > 0 %}
    {% set sql = load_csv_rows(model, agate_table) %}
  {% endif %}

  {% call noop_statement('main', code ~ ' ' ~ rows_affected, code, rows_affected) %}
    {{ get_csv_sql(create_table_sql, sql) }};
  {% endcall %}

  {% set target_relation = this.incorporate(type='table') %}

  {% set should_revoke = should_revoke(old_relation, full_refresh_mode) %}
  {% do apply_grants(target_relation, grant_config, should_revoke=should_revoke) %}

  {% do persist_docs(target_relation, model) %}

  {% if full_refresh_mode or not exists_as_table %}
    {% do create_indexes(target_relation) %}
  {% endif %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}

  -- `COMMIT` happens here
  {{ adapter.commit() }}

  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {{ return({'relations': [target_relation]}) }}

{% endmaterialization %}


{% macro duckdb__load_csv_rows(model, agate_table) %}
    {#- checked (and routed to row inserts when line endings are mixed) by the seed
        materialization above -#}
    {%- set seed_file_path = adapter.get_seed_file_path(model) -%}
    {%- set delimiter = config.get('delimiter', ',') -%}
    {%- set sql -%}
        copy {{ this.render() }} from '{{ seed_file_path | replace("'", "''") }}'
            (format csv, header true, delimiter '{{ delimiter }}')
    {%- endset -%}
    {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
    {{ return(sql) }}
{% endmacro %}


{#- Raise a compiler error naming seed, row and column when the raw file does not match
    its declaration; return {'mixed_line_endings': bool} otherwise. -#}
{% macro check_seed_file(model, seed_file_path) %}
    {%- set where = 'seed ' ~ model.name ~ ' (' ~ model.original_file_path ~ ')' -%}
    {%- set content = run_query(
        "select content from read_text('" ~ seed_file_path | replace("'", "''") ~ "')"
    ).columns[0].values()[0] -%}
    {%- if not content.lstrip('\ufeff').strip() -%}
        {{ exceptions.raise_compiler_error(
            where ~ ': the file is empty (no header row). Nothing was loaded.'
        ) }}
    {%- endif -%}
    {%- set re = modules.re -%}
    {%- set delimiter = re.escape(config.get('delimiter', ',')) -%}
    {%- set quoted = '"(?:[^"]|"")*"' -%}
    {%- set field = '(?:' ~ quoted ~ '|[^' ~ delimiter ~ '"\r\n]*)' -%}
    {%- set line_end = '(?:\r\n|\n|\r)' -%}
    {#- the header's number of fields: the delimiters outside quotes in the first record -#}
    {%- set first = re.match('(?:' ~ field ~ '(?:' ~ delimiter ~ ')?)*', content) -%}
    {%- set header_text = re.sub(quoted, '', first.group(0)) -%}
    {%- set n_header = header_text.count(config.get('delimiter', ',')) + 1 -%}
    {%- set header = [] -%}
    {%- set pattern = '(' ~ field ~ ')(?:' ~ delimiter ~ '|$)' -%}
    {%- for name in re.findall(pattern, first.group(0))[:n_header] -%}
        {%- set name = name.lstrip('\ufeff').strip() -%}
        {%- if name.startswith('"') and name.endswith('"') and name | length > 1 -%}
            {%- set name = name[1:-1].replace('""', '"') -%}
        {%- endif -%}
        {%- do header.append(name | lower) -%}
    {%- endfor -%}
    {%- set declared = (model.config.column_types or {}).keys() | map('lower') | list -%}
    {%- if declared | length > 0 -%}
        {%- set missing = declared | reject('in', header) | list -%}
        {%- set undeclared = header | reject('in', declared) | list -%}
        {%- if missing or undeclared -%}
            {%- set problems = [] -%}
            {%- if missing -%}
                {%- do problems.append('declared column(s) ' ~ missing | join(', ')
                    ~ ' missing from the header') -%}
            {%- endif -%}
            {%- if undeclared -%}
                {%- do problems.append('header column(s) ' ~ undeclared | join(', ')
                    ~ ' not declared in column_types') -%}
            {%- endif -%}
            {{ exceptions.raise_compiler_error(
                where ~ ', header row: ' ~ problems | join('; ') ~ ' (header: '
                ~ header | join(', ') ~ '; declared: ' ~ declared | join(', ')
                ~ '). Rename the column in the file or declare it.'
            ) }}
        {%- endif -%}
    {%- endif -%}
    {#- the longest prefix of well-formed records (blank lines allowed), in one regex pass;
        possessive repeats, so a large seed costs no backtracking -#}
    {%- set record = field ~ '(?:' ~ delimiter ~ field ~ '){' ~ (n_header - 1) ~ '}' -%}
    {%- set good = re.match('(?:(?:' ~ record ~ ')?' ~ line_end ~ ')*+', content).end() -%}
    {%- set rest = content[good:] -%}
    {%- if rest and not re.fullmatch(record, rest) -%}
        {#- the first bad record: its row, line and number of fields -#}
        {%- set before = re.sub(quoted, '', content[:good]) -%}
        {%- set bad_row = before.count('\n') + before.count('\r') - before.count('\r\n') -%}
        {%- set bad_line = content[:good].count('\n') + 1 -%}
        {%- set bad_text = re.match('(?:' ~ field ~ '(?:' ~ delimiter ~ ')?)*', rest).group(0) -%}
        {%- set n_fields = re.sub(quoted, '', bad_text).count(config.get('delimiter', ',')) + 1 -%}
        {%- set column = header[n_fields] if n_fields < n_header
            else '(beyond the last column ' ~ header[-1] ~ ')' -%}
        {{ exceptions.raise_compiler_error(
            where ~ ': row ' ~ bad_row ~ ' (line ' ~ bad_line ~ ') has ' ~ n_fields
            ~ ' field(s), the header has ' ~ n_header ~ '; first missing or extra column: '
            ~ column ~ '. Nothing was loaded.'
        ) }}
    {%- endif -%}
    {%- set bare = re.sub(quoted, '', content) -%}
    {%- set crlf = bare.count('\r\n') -%}
    {%- set kinds = [crlf > 0, bare.count('\n') > crlf, bare.count('\r') > crlf] -%}
    {{ return({'mixed_line_endings': kinds | select | list | length > 1}) }}
{% endmacro %}


{#- dbt's row inserts (dbt-duckdb's non-fast path), by column name. -#}
{% macro _insert_seed_rows(model, agate_table) %}
    {%- set agate_table = adapter.convert_datetimes_to_strs(agate_table) -%}
    {%- set cols_sql = get_seed_column_quoted_csv(model, agate_table.column_names) -%}
    {%- set statements = [] -%}
    {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
        {%- set bindings = [] -%}
        {%- for row in chunk -%}
            {%- do bindings.extend(row) -%}
        {%- endfor -%}
        {%- set sql -%}
            insert into {{ this.render() }} ({{ cols_sql }}) values
            {% for row in chunk -%}
                ({%- for column in agate_table.column_names -%}
                    {{ get_binding_char() }}
                    {%- if not loop.last %},{%- endif %}
                {%- endfor -%})
                {%- if not loop.last %},{%- endif %}
            {%- endfor %}
        {%- endset -%}
        {%- do adapter.add_query(sql, bindings=bindings, abridge_sql_log=True) -%}
        {%- if loop.index0 == 0 -%}
            {%- do statements.append(sql) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(statements[0] if statements else '') }}
{% endmacro %}
