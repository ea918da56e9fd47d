{#- dbt-duckdb's seed loader. The seed files were checked before dbt read them
    (concord_io.landing.seeds, run by the dbt plugin: one line per refused file, naming its
    row and column), so DuckDB's CSV reader loads the checked bytes: every column as text
    under the header's names (surrounding blanks removed, as the check names them), without
    strict mode (which would refuse mixed line endings), inserted by name (a reordered
    header loads right). -#}
{% macro duckdb__load_csv_rows(model, agate_table) %}
    {%- set columns = [] -%}
    {%- for name in agate_table.column_names -%}
        {%- do columns.append("'" ~ name | trim | replace("'", "''") ~ "': 'varchar'") -%}
    {%- endfor -%}
    {%- set sql -%}
        insert into {{ this.render() }} by name
        select * from read_csv(
            '{{ adapter.get_seed_file_path(model) | replace("'", "''") }}',
            header = true,
            auto_detect = false,
            delim = ',',
            quote = '"',
            escape = '"',
            strict_mode = false,
            columns = { {{- columns | join(', ') -}} }
        )
    {%- endset -%}
    {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
    {{ return(sql) }}
{% endmacro %}
