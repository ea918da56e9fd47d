{#- Answer records from the long-format files and lm-evaluation-harness sample logs
    registered in mcq_answer_sources, one row per record in the file, in one shape:
    source_file, source_row, model, run, item_key, language, answer_raw, source_column,
    presented_option_order, record_problem (why the record cannot be an answer; null when
    it can). The format's reading is DuckDB-specific (read_parquet, JSON paths, list
    functions): the duckdb__ implementation; other adapters add theirs. -#}

{% macro mcq_answer_records(path, relative, line, rejects_table) %}
    {{ return(adapter.dispatch('mcq_answer_records', 'concord')(path, relative, line, rejects_table)) }}
{% endmacro %}

{#- A registry value as a literal, or null when the registry leaves it blank. -#}
{% macro mcq_literal_or_null(value) -%}
    {%- if value -%}{{ mcq_literal(value) }}{%- else -%}cast(null as {{ dbt.type_string() }}){%- endif -%}
{%- endmacro %}

{#- One JSON line per record: the lines are read as one text column (no quoting), so a
    line that is not JSON becomes a quarantined record, not a failed build. -#}
{% macro duckdb__mcq_json_lines(path) %}
    (
        select ordinality::bigint as source_row, json_line
        from read_csv(
            '{{ path | replace("'", "''") }}',
            header = false,
            columns = {'json_line': 'varchar'},
            delim = chr(31),
            quote = '',
            escape = '',
            auto_detect = false,
            strict_mode = false,
            max_line_size = 67108864
        ) with ordinality
    )
{%- endmacro %}

{% macro duckdb__mcq_answer_records(path, relative, line, rejects_table) %}
    {%- set extension = path.rsplit('.', 1)[-1] | lower -%}
    {%- set inspected = strict_csv_inspect(path, relative) if extension != 'parquet' else {'problem': ''} -%}
    {%- if inspected['problem'] -%}
        {{ exceptions.raise_compiler_error(inspected['problem']) }}
    {%- endif -%}
    {%- set order = mcq_literal(line['presented_option_order'] or var('mcq_options') | join('')) -%}
    {%- set required = ['item_id', 'language', 'answer'] -%}
    {%- if line['format'] == 'lm_eval' -%}
        {%- set key = line.get('item_key') or 'doc_id' -%}
        {%- set lls -%}
            coalesce(
                nullif(try_cast(json_extract_string(json_line, '$.filtered_resps[*][0]') as double[]), []),
                try_cast(json_extract_string(json_line, '$.resps[*][0][0]') as double[])
            )
        {%- endset %}
    select
        {{ mcq_literal(relative) }} as source_file,
        source_row,
        {{ mcq_literal(line['model']) }} as model,
        {{ mcq_literal(line['run']) }} as run,
        {%- if key == 'doc_id' %}
        -- the harness numbers documents from 0; items are numbered from 1
        (try_cast(json_extract_string(json_line, '$.doc_id') as bigint) + 1)::varchar as item_key,
        {%- else %}
        json_extract_string(json_line, {{ mcq_literal('$.' ~ key) }}) as item_key,
        {%- endif %}
        {{ mcq_literal(line['language']) }} as language,
        -- the chosen option: the choice with the highest log-likelihood (the first on ties)
        chr(64 + list_position(choice_lls, list_max(choice_lls))) as answer_raw,
        'filtered_resps' as source_column,
        {{ order }} as presented_option_order,
        case
            when not is_json then 'not a JSON object'
            when choice_lls is null or len(choice_lls) = 0
                then 'no log-likelihoods in filtered_resps or resps'
            when list_contains(choice_lls, 'NaN'::double)
                then 'a log-likelihood is NaN'
            when len(choice_lls) > {{ var('mcq_options') | length }}
                then 'more choices than options ' || {{ mcq_literal(var('mcq_options') | join('')) }}
        end as record_problem
    from (
        select
            *,
            case when is_json then {{ lls }} end as choice_lls
        from (select *, coalesce(json_valid(json_line), false) as is_json from {{ duckdb__mcq_json_lines(path) }})
        where trim(coalesce(json_line, '')) <> ''
    )
    {%- elif extension in ('jsonl', 'json') %}
    select
        {{ mcq_literal(relative) }} as source_file,
        source_row,
        coalesce(fields['model'], {{ mcq_literal_or_null(line['model']) }}) as model,
        coalesce(fields['run'], {{ mcq_literal_or_null(line['run']) }}) as run,
        fields['item_id'] as item_key,
        fields['language'] as language,
        fields['answer'] as answer_raw,
        'answer' as source_column,
        {{ order }} as presented_option_order,
        case when fields is null then 'not a JSON object' end as record_problem
    from (
        select
            source_row,
            case when coalesce(json_valid(json_line), false) then map_from_entries([
                {%- for field in ['model', 'run', 'item_id', 'language', 'answer'] %}
                ({{ mcq_literal(field) }}, json_extract_string(json_line, {{ mcq_literal('$.' ~ field) }})){{ ',' if not loop.last }}
                {%- endfor %}
            ]) end as fields
        from {{ duckdb__mcq_json_lines(path) }}
        where trim(coalesce(json_line, '')) <> ''
    )
    {%- else -%}
        {%- if extension == 'parquet' -%}
            {%- set header = run_query(
                "select name from parquet_schema('" ~ path | replace("'", "''") ~ "') where name <> 'schema'"
            ).columns[0].values() | list -%}
            {%- set missing = required | reject('in', header) | list -%}
            {%- if missing -%}
                {{ exceptions.raise_compiler_error(
                    relative ~ ': missing column(s) ' ~ missing | join(', ') ~ ' (columns: '
                    ~ header | join(', ') ~ ')') }}
            {%- endif -%}
        {%- else -%}
            {%- set header = strict_csv_header(path, relative, required) -%}
        {%- endif %}
    select
        {{ mcq_literal(relative) }} as source_file,
        source_row,
        {%- for field in ['model', 'run'] %}
        {%- if field in header %}
        coalesce(nullif(trim(cast({{ adapter.quote(field) }} as varchar)), ''), {{ mcq_literal_or_null(line[field]) }}) as {{ field }},
        {%- else %}
        {{ mcq_literal_or_null(line[field]) }} as {{ field }},
        {%- endif %}
        {%- endfor %}
        cast("item_id" as varchar) as item_key,
        cast("language" as varchar) as language,
        cast("answer" as varchar) as answer_raw,
        'answer' as source_column,
        {{ order }} as presented_option_order,
        cast(null as varchar) as record_problem
    {%- if extension == 'parquet' %}
    from (
        select *, file_row_number + 1 as source_row
        from read_parquet('{{ path | replace("'", "''") }}', file_row_number = true)
    )
    {%- else %}
    from {{ strict_csv_scan(path, header, rejects_table=rejects_table) }}
    {%- endif %}
    {%- endif %}
{% endmacro %}
