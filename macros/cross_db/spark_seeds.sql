{#- Seed rows on Spark as SQL literals. dbt-spark's session cursor pastes bindings between
    single quotes without escaping, so a value with a quote ("I'll") breaks the insert and an
    empty cell loads as the text 'None'. Here every value is escaped for Spark's string
    literals (backslash, quote) and an empty cell is null, as on DuckDB. One insert per
    batch of rows (dbt's batch size), in file order. -#}
{% macro spark__load_csv_rows(model, agate_table) %}
    {%- set column_override = model['config'].get('column_types', {}) -%}
    {%- set types = [] -%}
    {%- for col_name in agate_table.column_names -%}
        {%- do types.append(column_override.get(
            col_name, adapter.convert_type(agate_table, loop.index0)
        )) -%}
    {%- endfor -%}
    {%- set statements = [] -%}
    {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
        {%- set sql -%}
            insert into {{ this.render() }} values
            {% for row in chunk -%}
                ({%- for value in row -%}
                    cast({{ spark_seed_literal(value) }} as {{ types[loop.index0] }})
                    {%- if not loop.last %},{% endif -%}
                {%- endfor -%})
                {%- if not loop.last %},{% endif %}
            {% endfor %}
        {%- endset -%}
        {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
        {%- if loop.index0 == 0 -%}
            {%- do statements.append(sql) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(statements[0] if statements else '') }}
{% endmacro %}

{% macro spark_seed_literal(value) -%}
    {%- if value is none -%}
        null
    {%- else -%}
        '{{ value | string | replace("\\", "\\\\") | replace("'", "\\'") }}'
    {%- endif -%}
{%- endmacro %}
