{#- Fail the build when a check query returns rows, naming the first offenders.
    Used as a post-hook by models whose input must be rejected whole (misaligned files):
    dbt's own tests would only say how many rows failed, not which file and row. -#}
{% macro assert_no_rows(check_sql, message, max_rows=5) %}
    {% if execute %}
        {% set result = run_query(check_sql ~ ' limit ' ~ max_rows) %}
        {% if result.rows | length > 0 %}
            {% set lines = [] %}
            {% for row in result.rows %}
                {% set cells = [] %}
                {% for name in result.column_names %}
                    {% do cells.append(name ~ '=' ~ row[name]) %}
                {% endfor %}
                {% do lines.append('  - ' ~ cells | join(', ')) %}
            {% endfor %}
            {{ exceptions.raise_compiler_error(message ~ ':\n' ~ lines | join('\n')) }}
        {% endif %}
    {% endif %}
    select 1
{% endmacro %}
