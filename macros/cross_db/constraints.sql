{#- A mart's contract constraints (not_null, primary_key, unique, check) are its column
    rules, stated once in its YAML. DuckDB enforces them when the table is written. dbt-spark
    enforces them on Delta tables only, and Concord's Spark tables are Parquet: there one
    query over the built table counts each constraint's violating rows, and the model fails
    as it would on DuckDB, naming the constraint and the count. -#}
{% macro spark__persist_constraints(relation, model) %}
    {%- if config.get('contract').enforced -%}
        {%- do assert_constraints_hold(relation, model) -%}
    {%- endif -%}
{% endmacro %}

{#- `dbt run-operation check_constraints --args '{model: NAME, relation: TABLE}'` on a target
    that does not enforce constraints: the same check on any table or subquery, against the
    constraints of model NAME (Spark SQL: count(distinct a, b)). -#}
{% macro check_constraints(model, relation) %}
    {%- set node = graph.nodes.values() | selectattr('name', 'equalto', model)
        | selectattr('resource_type', 'equalto', 'model') | first -%}
    {%- if node is undefined or node is none -%}
        {{ exceptions.raise_compiler_error("check_constraints: no model named " ~ model) }}
    {%- endif -%}
    {%- do assert_constraints_hold(relation, node) -%}
    {{ log(model ~ ": every constraint holds on " ~ relation, info=true) }}
{% endmacro %}

{% macro assert_constraints_hold(relation, node) %}
    {%- set checks = constraint_checks(node) -%}
    {%- if checks | length == 0 -%}{{ return(none) }}{%- endif -%}
    {%- set query -%}
        select
        {%- for check in checks %}
            {{ check.violations }} as v{{ loop.index }}{{ ',' if not loop.last }}
        {%- endfor %}
        from {{ relation }}
    {%- endset -%}
    {%- set counts = run_query(query).rows[0] -%}
    {%- set failed = [] -%}
    {%- for check in checks -%}
        {%- if counts[loop.index0] > 0 -%}
            {%- do failed.append(check.rule ~ ': ' ~ counts[loop.index0] ~ ' row(s)') -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if failed -%}
        {{ exceptions.raise_compiler_error(
            node.name ~ ': ' ~ failed | join('; ')
            ~ ' (constraints in the model\'s YAML; fix the rows upstream)') }}
    {%- endif -%}
{% endmacro %}

{#- One {rule, violations} per constraint: `violations` is an aggregate counting the rows
    that break it. A primary key also forbids nulls, as in DuckDB. -#}
{% macro constraint_checks(node) %}
    {%- set checks = [] -%}
    {%- for column in node.columns.values() -%}
        {%- for constraint in column.constraints -%}
            {%- do checks.extend(constraint_check_of(constraint, [column.name])) -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- for constraint in node.constraints -%}
        {%- do checks.extend(constraint_check_of(constraint, constraint.columns)) -%}
    {%- endfor -%}
    {{ return(checks) }}
{% endmacro %}

{% macro constraint_check_of(constraint, columns) %}
    {%- set quoted = [] -%}
    {%- for column in columns -%}{%- do quoted.append(adapter.quote(column)) -%}{%- endfor -%}
    {%- set label = constraint.type ~ '(' ~ columns | join(', ') ~ ')' -%}
    {%- set checks = [] -%}
    {%- if constraint.type in ('not_null', 'primary_key') -%}
        {%- do checks.append({
            'rule': label ~ (' has nulls' if constraint.type == 'primary_key' else ''),
            'violations': 'count_if(' ~ quoted | join(' is null or ') ~ ' is null)'}) -%}
    {%- endif -%}
    {%- if constraint.type in ('primary_key', 'unique') -%}
        {#- rows with a null in the key are not duplicates, as in SQL's unique -#}
        {%- do checks.append({
            'rule': label ~ ' has duplicates',
            'violations': 'count_if(' ~ quoted | join(' is not null and ') ~ ' is not null)'
                ~ ' - count(distinct ' ~ quoted | join(', ') ~ ')'}) -%}
    {%- endif -%}
    {%- if constraint.type == 'check' -%}
        {%- do checks.append({
            'rule': 'check(' ~ constraint.expression ~ ')',
            'violations': 'count_if(not (' ~ constraint.expression ~ '))'}) -%}
    {%- endif -%}
    {{ return(checks) }}
{% endmacro %}
