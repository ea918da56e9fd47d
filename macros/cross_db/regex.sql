{#- Regular expressions, written once and quoted for each engine. DuckDB (RE2) and Spark
    (java.util.regex) agree on the syntax Concord uses; they differ in how a pattern is
    written as a string literal (Spark's literals treat a backslash as an escape) and in
    how "replace every match" and "does it match" are spelt.
    `pattern` is the pattern itself, not a SQL literal. -#}

{% macro regex_literal(pattern) -%}
    {{ return(adapter.dispatch('regex_literal', 'concord')(pattern)) }}
{%- endmacro %}

{% macro default__regex_literal(pattern) -%}
    '{{ pattern | replace("'", "''") }}'
{%- endmacro %}

{% macro spark__regex_literal(pattern) -%}
    '{{ pattern | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}


{#- Every match of `pattern` in `expr` replaced by the literal text `replacement`. -#}
{% macro regexp_replace_all(expr, pattern, replacement) -%}
    {{ return(adapter.dispatch('regexp_replace_all', 'concord')(expr, pattern, replacement)) }}
{%- endmacro %}

{#- DuckDB replaces only the first match unless told 'g'. -#}
{% macro default__regexp_replace_all(expr, pattern, replacement) -%}
    regexp_replace({{ expr }}, {{ regex_literal(pattern) }}, '{{ replacement }}', 'g')
{%- endmacro %}

{% macro spark__regexp_replace_all(expr, pattern, replacement) -%}
    regexp_replace({{ expr }}, {{ regex_literal(pattern) }}, '{{ replacement }}')
{%- endmacro %}


{#- Whether `pattern` matches anywhere in `expr`. -#}
{% macro regexp_contains(expr, pattern) -%}
    {{ return(adapter.dispatch('regexp_contains', 'concord')(expr, pattern)) }}
{%- endmacro %}

{% macro default__regexp_contains(expr, pattern) -%}
    regexp_matches({{ expr }}, {{ regex_literal(pattern) }})
{%- endmacro %}

{% macro spark__regexp_contains(expr, pattern) -%}
    ({{ expr }} rlike {{ regex_literal(pattern) }})
{%- endmacro %}
