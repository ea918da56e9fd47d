{#- Settings checked once, at the start of every dbt run (on-run-start in dbt_project.yml),
    before any model allocates anything: each var and environment variable against its
    allowed range, failing with one line that names it and says what is allowed. Values are
    never coerced: 1.5 resamples is refused, not truncated to 1.

    Values that reach SQL as text go through sql_string_literal, so a quote in a path or a
    name is a character, never the end of a string. -#}



{#- The whole-number vars: name -> (smallest, largest). The upper bounds keep one run's
    memory and time sane (a resample or permutation count is an array length); the seed's
    is the largest a mart's bigint column holds (the intervals publish it). -#}
{% macro _whole_number_vars() %}
    {{ return({
        'bootstrap_resamples': (1, 1000000),
        'mcq_calibration_bins': (1, 1000),
        'probe_permutations': (1, 1000000),
        'bootstrap_seed': (0, 9223372036854775807),
    }) }}
{% endmacro %}


{% macro _refuse_setting(name, value, rule) %}
    {{ exceptions.raise_compiler_error(
        'var ' ~ name ~ ' = ' ~ (tojson(value) | string)[:80] ~ ': ' ~ rule ~ '. Set it in dbt_project.yml vars or with --vars \'{' ~ name
        ~ ': ...}\'.'
    ) }}
{% endmacro %}


{% macro _check_whole_number(name, bounds) %}
    {%- set value = var(name) -%}
    {%- set low, high = bounds -%}
    {%- set rule = 'must be a whole number from ' ~ low ~ ' to ' ~ high -%}
    {%- if value is string and value.strip().isdigit() -%}
        {%- set value = value.strip() | int -%}
    {%- endif -%}
    {%- if value is not integer or value is sameas true or value is sameas false -%}
        {{ _refuse_setting(name, var(name), rule) }}
    {%- elif value < low or value > high -%}
        {{ _refuse_setting(name, var(name), rule) }}
    {%- endif -%}
{% endmacro %}


{% macro _check_confidence(name) %}
    {%- set value = var(name) -%}
    {%- set rule = 'must be a number strictly between 0 and 1, e.g. 0.95' -%}
    {%- if value is string -%}
        {%- set value = value.strip() | float(none) if value.strip() else none -%}
    {%- endif -%}
    {%- if value is none or value is not number or value is sameas true
        or value is sameas false -%}
        {{ _refuse_setting(name, var(name), rule) }}
    {%- elif not (0 < value < 1) -%}
        {{ _refuse_setting(name, var(name), rule) }}
    {%- endif -%}
{% endmacro %}


{#- A list of distinct names that the models paste into SQL (as text, or as part of a
    column name). mcq_languages holds language tags (en-US: the reader checks each is one,
    docs/landing.md) and may be empty: every language of a task's answers is compared. -#}
{% macro _check_name_list(name, allow_empty=false, pattern='[A-Za-z][A-Za-z0-9_]*',
                          example='[en, it, fa]') %}
    {%- set value = var(name) -%}
    {%- set rule = 'must be a list of distinct names made of '
        ~ ('letters, digits and -' if '-' in pattern else 'letters, digits and _')
        ~ ', starting with a letter' ~ (', or []' if allow_empty else '') ~ ', e.g. ' ~ example -%}
    {%- if value is string or value is not iterable or value is mapping
        or (value | length == 0 and not allow_empty) -%}
        {{ _refuse_setting(name, value, rule) }}
    {%- endif -%}
    {%- for item in value -%}
        {%- if item is not string or not modules.re.fullmatch(pattern, item) -%}
            {{ _refuse_setting(name, value, rule ~ ' (' ~ item ~ ' is not)') }}
        {%- endif -%}
    {%- endfor -%}
    {%- if value | unique | list | length != value | length -%}
        {{ _refuse_setting(name, value, rule ~ ' (a name repeats)') }}
    {%- endif -%}
{% endmacro %}


{#- A folder var: a non-empty path; no glob characters (it is part of a glob pattern) and,
    until every reader quotes it through sql_string_literal, no single quote. -#}
{% macro _check_folder(name) %}
    {%- set value = var(name) -%}
    {%- if value is not string or not value.strip() -%}
        {{ _refuse_setting(name, value, 'must be a folder path') }}
    {%- endif -%}
    {%- set bad = modules.re.findall("[*?\\[\\]{}'\x00-\x1f]", value) -%}
    {%- if bad -%}
        {{ _refuse_setting(
            name, value, 'must be a folder path without glob characters, quotes or control '
            ~ 'characters (found ' ~ (bad | unique | join(' ')) ~ '); rename the folder or '
            ~ 'point to it through a symbolic link without them'
        ) }}
    {%- endif -%}
{% endmacro %}


{#- probe_baseline_group must be a group of the probe's names (the landed seed file
    probe_names; not checked before it is landed). -#}
{% macro _check_baseline_group() %}
    {%- set value = var('probe_baseline_group') -%}
    {%- if value is not string or not value.strip() or "'" in value -%}
        {{ _refuse_setting(
            'probe_baseline_group', value, 'must be the name of a group in the probe_names seed'
        ) }}
    {%- endif -%}
    {%- set found = run_query(
        'select distinct group_name, source_file from ('
        ~ read_landed_seed('probe_seeds', 'probe_names') ~ ') as names order by 1'
    ) -%}
    {%- set groups = found.columns[0].values() | list -%}
    {%- if groups and value not in groups -%}
        {{ _refuse_setting(
            'probe_baseline_group', value, 'is not a group of ' ~ found.columns[1].values()[0]
            ~ ' (groups: ' ~ groups | join(', ') ~ ')'
        ) }}
    {%- endif -%}
{% endmacro %}


{#- Every var given on the command line (--vars) is one the project declares: dbt itself
    accepts any name, so a misspelt var (bootstrap_resample) would be ignored without a
    word. The declared names are read from dbt_project.yml, their one home. -#}
{% macro _check_no_unknown_vars() %}
    {%- set given = invocation_args_dict.get('vars') or {} -%}
    {%- if given is string -%}
        {%- set given = fromyaml(given) or {} -%}
    {%- endif -%}
    {%- set declared = _declared_vars() -%}
    {%- if declared is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- for name in given if name not in declared -%}
        {{ exceptions.raise_compiler_error(
            'var ' ~ name ~ ' (given with --vars) is not a var of this project; check its '
            ~ 'spelling. Its vars: ' ~ declared | sort | join(', ') ~ ' (dbt_project.yml vars).'
        ) }}
    {%- endfor -%}
{% endmacro %}

{#- The var names declared in dbt_project.yml, or none where the file cannot be read. -#}
{% macro _declared_vars() %}
    {{ return(adapter.dispatch('declared_vars', 'concord')()) }}
{% endmacro %}

{% macro default__declared_vars() %}
    {{ return(none) }}
{% endmacro %}

{% macro duckdb__declared_vars() %}
    {#- the project folder of the call (--project-dir, else the working folder) -#}
    {%- set path = (flags.PROJECT_DIR or '.') ~ '/dbt_project.yml' -%}
    {%- set found = run_query('select content from read_text(' ~ sql_string_literal(path) ~ ')')
        .columns[0].values() -%}
    {%- if not found -%}
        {{ return(none) }}  {#- a root whose name reads as a glob pattern: not checked -#}
    {%- endif -%}
    {{ return((fromyaml(found[0]).get('vars') or {}).keys() | list) }}
{% endmacro %}


{#- Environment variables are checked where dbt reads them: CONCORD_THREADS in profiles.yml,
    CONCORD_DB_PATH by concord_io.dbt_plugin before the file is opened, CONCORD_LANDING_DIR
    as the var landing_dir below. -#}
{% macro check_run_settings() %}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- for name, bounds in _whole_number_vars().items() -%}
        {%- do _check_whole_number(name, bounds) -%}
    {%- endfor -%}
    {%- do _check_confidence('bootstrap_confidence') -%}
    {%- do _check_name_list('mcq_languages', allow_empty=true,
                            pattern='[A-Za-z][A-Za-z0-9-]*') -%}
    {%- for name in ['mcq_options', 'mcq_disagreement_types'] -%}
        {%- do _check_name_list(name) -%}
    {%- endfor -%}
    {%- for name in ['mcq_answers_dir', 'mcq_items_dir', 'landing_dir'] -%}
        {%- do _check_folder(name) -%}
    {%- endfor -%}
    {%- do _check_baseline_group() -%}
    {%- do _check_no_unknown_vars() -%}
    {{ return('') }}
{% endmacro %}


{#- At the end of a run: a warning counting the rows each study set aside, from the
    quarantine models this run built (dq_quarantine lists them). -#}
{% macro warn_quarantined(results) %}
    {%- if not execute or flags.WHICH not in ['build', 'run'] -%}
        {{ return('') }}
    {%- endif -%}
    {%- set counts = [] -%}
    {%- for result in results -%}
        {%- set node = result.node -%}
        {%- if node.resource_type == 'model' and node.name.endswith('_quarantined')
            and result.status == 'success' -%}
            {%- set relation = api.Relation.create(
                database=node.database, schema=node.schema, identifier=node.alias
            ) -%}
            {%- set n = run_query('select count(*) from ' ~ relation).columns[0].values()[0] -%}
            {%- if n > 0 -%}
                {%- do counts.append(node.fqn[-2] ~ ': ' ~ n) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if counts -%}
        {%- do exceptions.warn(
            'quarantined input rows (set aside, not counted; see marts.dq_quarantine): '
            ~ counts | join(', ')
        ) -%}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}
