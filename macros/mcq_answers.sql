{#- The cross-lingual answers as the reader lands them (docs/landing.md): every answer was
    read, checked and normalised in Python (concord_io/landing/names.py); these macros
    only sort and version what landed. -#}

{#- The reasons an answer's text is not an option (concord_io.landing.names.REASONS):
    such an answer is an invalid answer, kept and never counted. -#}
{% macro mcq_invalid_answer_reasons() -%}
    {{ return(['empty', 'letter_out_of_range', 'pipeline_error', 'unrecognised']) }}
{%- endmacro %}

{#- True for a landed answer (valid, or invalid for one of the reasons above); false for a
    record that cannot be an answer at all (a sample of more than 26 choices),
    which is quarantined as a record instead. -#}
{% macro mcq_is_answer(invalid_reason) -%}
    ({{ invalid_reason }} is null or {{ invalid_reason }} in (
        {%- for reason in mcq_invalid_answer_reasons() -%}
        '{{ reason }}'{{ ', ' if not loop.last }}
        {%- endfor -%}
    ))
{%- endmacro %}

{#- True for an answer (alias `answers`) in a language its task compares: one its task
    declares (`declared`, int_mcq_task_languages_declared), or any language when the task
    declares none. Under the var mcq_languages always true: the reader has set aside every
    answer in another language. -#}
{% macro mcq_in_task_languages(answers, declared) -%}
    {%- if var('mcq_languages') | length > 0 -%}
    true
    {%- else -%}
    {#- IN, not EXISTS: DuckDB's plan for the two EXISTS took 4 s more of the normalised
        answers' 15 s at 10^7 answers. No null in the lists: an IN that meets one is null,
        and an answer neither kept nor quarantined would be lost. -#}
    ({{ answers }}.task not in (select d.task from {{ declared }} as d where d.task is not null)
        or ({{ answers }}.task, {{ answers }}.language) in (
            select d.task, d.language from {{ declared }} as d
            where d.task is not null and d.language is not null
        ))
    {%- endif -%}
{%- endmacro %}

{#- A file's version in a run: the run, the file's content and when the run was landed (the
    reader lands a run again only when its inputs changed: a file, a registry line, the
    item files or translations, the study's languages or options), and the build's context
    (everything else a row is made from: the code, the vars, the seed files, the reader's
    version; concord_io/build_context.py), so that an incremental build after any change
    computes what a full build would. -#}
{% macro mcq_file_version(runs, answers) -%}
    {{ runs }}.run_id || '|' || {{ answers }}.content_hash || '|'
        || cast({{ epoch_microseconds(runs ~ '.landed_at') }} as {{ dbt.type_string() }})
        || '|' || {{ mcq_build_context() }}
{%- endmacro %}

{#- The build's context (concord_io/build_context.py): what every file version is computed
    under besides the file itself (the models' code, the landed seeds, the vars), so that
    a change of any of them computes every run again. The dbt plugin hands it to each DuckDB
    connection. -#}
{% macro mcq_build_context() -%}
    {{ return(adapter.dispatch('mcq_build_context', 'concord')()) }}
{%- endmacro %}

{#- Read once when the model compiles and written into its SQL as a literal: a function of
    each row (and DuckDB's error() above all) would keep the optimiser from turning the
    stale-version delete into a join (minutes at 10⁷ rows instead of seconds). -#}
{% macro default__mcq_build_context() -%}
    {%- if not execute -%}
        {{ return("''") }}
    {%- endif -%}
    {%- set context = run_query("select getvariable('concord_build_context')").columns[0].values()[0] -%}
    {%- if context is none -%}
        {{ exceptions.raise_compiler_error(
            "no build context: this connection was not opened through the project's dbt "
            ~ "plugin (profiles.yml, plugins: concord_io.dbt_plugin)") }}
    {%- endif -%}
    {{ return(sql_string_literal(context)) }}
{%- endmacro %}

{#- On Spark, `concord build --target spark` gives it (CONCORD_BUILD_CONTEXT,
    concord_io/dbt_sequence.py); a dbt call given none (plain `dbt build --target spark`)
    knows nothing of what changed and computes every run again: its own invocation id. -#}
{% macro spark__mcq_build_context() -%}
    {{ return(sql_string_literal(env_var('CONCORD_BUILD_CONTEXT', '') or invocation_id)) }}
{%- endmacro %}

{#- Every file version that int_mcq_answers_normalised holds after a build, from staging:
    one row per file of a run (run_id, source_file, content_hash) with its file_version.
    Built on the files, not on each answer: the version's text is made once a file (at 10⁷
    answers, made for each answer and then made distinct, it cost a build with nothing new
    a full pass over every answer). -#}
{% macro mcq_answer_file_versions() -%}
    select
        files.run_id,
        files.source_file,
        files.content_hash,
        {{ mcq_file_version('runs', 'files') }} as file_version
    from (
        select distinct answers.run_id, answers.source_file, answers.content_hash
        from {{ ref('stg_mcq__answers') }} as answers
        where {{ mcq_is_answer('answers.invalid_reason') }}
    ) as files
    inner join {{ ref('stg_mcq__runs') }} as runs
        on files.run_id = runs.run_id
{%- endmacro %}

{#- The filter of int_mcq_answers_normalised on `files` (mcq_answer_file_versions) when it
    builds incrementally: the file versions `held` does not hold yet. -#}
{% macro mcq_file_versions_to_read(files, held) %}
    {{ return(adapter.dispatch('mcq_file_versions_to_read', 'concord')(files, held)) }}
{% endmacro %}

{% macro default__mcq_file_versions_to_read(files, held) -%}
    not exists (
        select 1 from (
            select source_file, file_version from {{ held }}
            group by source_file, file_version
        ) as held
        where held.source_file = {{ files }}.source_file
            and held.file_version = {{ files }}.file_version
    )
{%- endmacro %}

{#- Spark overwrites a run's partition whole: every file of a run whose files changed (one
    new, changed or gone). -#}
{% macro spark__mcq_file_versions_to_read(files, held) -%}
    {%- if execute -%}{{ spark_require_partitioned(held, 'run_id') }}{%- endif -%}
    {{ files }}.run_id in (
        select run_id from (
            select run_id, source_file, file_version from {{ files }}
            except
            select run_id, source_file, file_version from {{ held }}
        ) as unread
        union
        select run_id from (
            select run_id, source_file, file_version from {{ held }}
            except
            select run_id, source_file, file_version from {{ files }}
        ) as stale
    )
{%- endmacro %}

{#- Post-hook of int_mcq_answers_normalised (incremental by file version, appending the
    versions it does not hold): delete the rows of versions no longer current, a changed
    file's older version or a run no longer landed. -#}
{% macro mcq_delete_stale_file_versions(relation, current) %}
    {{ return(adapter.dispatch('mcq_delete_stale_file_versions', 'concord')(relation, current)) }}
{% endmacro %}

{% macro default__mcq_delete_stale_file_versions(relation, current) %}
    {#- the stale versions found first among the few versions held, then their rows -#}
    delete from {{ relation }} as held
    where exists (
        select 1 from (
            select source_file, file_version from {{ relation }}
            group by source_file, file_version
            except
            select source_file, file_version from ({{ current }}) as now
        ) as stale
        where stale.source_file = held.source_file and stale.file_version = held.file_version
    )
{% endmacro %}

{#- Spark: a changed run's partition was overwritten whole; the partitions of runs no longer
    landed are dropped. -#}
{% macro spark__mcq_delete_stale_file_versions(relation, current) %}
    {%- if execute -%}
        {%- set gone = run_query('select distinct run_id from ' ~ relation
            ~ ' except select run_id from (' ~ current ~ ') as now') -%}
        {%- do spark_drop_partitions(relation, 'run_id', gone) -%}
        {%- do spark_incremental_written([relation]) -%}
    {%- endif -%}
    select 1
{% endmacro %}

{#- The five complete disagreement types partition the complete items; an item with a
    language missing or invalid is `incomplete`. (The study's notebooks let every
    agreeing item fall through to "All different"; here all_same is its own type.) -#}
{% macro mcq_disagreement_type(answer_en, answer_it, answer_fa) -%}
    case
        when {{ answer_en }} is null or {{ answer_it }} is null or {{ answer_fa }} is null
            then 'incomplete'
        when {{ answer_en }} = {{ answer_it }} and {{ answer_it }} = {{ answer_fa }}
            then 'all_same'
        when {{ answer_en }} = {{ answer_it }} then 'fa_diverged'
        when {{ answer_en }} = {{ answer_fa }} then 'it_diverged'
        when {{ answer_it }} = {{ answer_fa }} then 'en_diverged'
        else 'all_different'
    end
{%- endmacro %}

{#- A model and its revision as one non-null key (a null revision is ''): the group of the
    variant/baseline pairing, which compares runs of the same model revision. -#}
{% macro mcq_revision_key(model, revision) -%}
    {{ model }} || '@' || coalesce({{ revision }}, '')
{%- endmacro %}

{#- Two languages side by side on the same items: per run, task, unordered pair of languages
    (language_a < language_b) and item both answered validly, the option each chose. A
    query, never a table: at 40 languages a run has 780 pairs per item, so its reader
    (int_mcq_pairwise_agreement_linearised, for the runs with an incomplete item) aggregates
    it as it streams. `runs`: a relation of (run_id, task), one row each: only those runs'
    answers are paired (joined to each side before the pairs, so no other answer reaches
    them). -#}
{% macro mcq_language_pairs(runs=none) -%}
    {#- each side filtered in its own subquery: a filter on the pairs is applied after the
        join, when DuckDB has paired every answer -#}
    {%- set valid_answers -%}
        (
            select answers.run_id, answers.task, answers.item_id, answers.language,
                answers.chosen_option
            from {{ ref('int_mcq_answers_normalised') }} as answers
            {%- if runs %}
            inner join {{ runs }} as runs
                on answers.run_id = runs.run_id and answers.task = runs.task
            {%- endif %}
            where answers.is_valid
        )
    {%- endset %}
    select
        a.run_id,
        a.task,
        a.language as language_a,
        b.language as language_b,
        a.item_id,
        a.chosen_option as option_a,
        b.chosen_option as option_b
    from {{ valid_answers }} as a
    inner join {{ valid_answers }} as b
        on a.run_id = b.run_id
        and a.task = b.task
        and a.item_id = b.item_id
        and a.language < b.language
{%- endmacro %}

{#- `relation`'s rows (a CTE with run_id) with their run's model, revision and variant: what
    a mart keyed by run shows beside the key. -#}
{% macro mcq_with_run(relation) -%}
    select {{ relation }}.*, runs.model, runs.model_revision, runs.variant
    from {{ relation }}
    inner join {{ ref('int_mcq_runs_versioned') }} as runs
        on {{ relation }}.run_id = runs.run_id
{%- endmacro %}

{#- `relation`'s rows (a CTE with run_id_a and run_id_b: a pair of runs) with each run's
    model and revision: what a mart comparing two runs shows beside its key. -#}
{% macro mcq_with_run_pair(relation) -%}
    select
        {{ relation }}.*,
        run_a.model as model_a,
        run_a.model_revision as model_revision_a,
        run_b.model as model_b,
        run_b.model_revision as model_revision_b
    from {{ relation }}
    inner join {{ ref('int_mcq_runs_versioned') }} as run_a
        on {{ relation }}.run_id_a = run_a.run_id
    inner join {{ ref('int_mcq_runs_versioned') }} as run_b
        on {{ relation }}.run_id_b = run_b.run_id
{%- endmacro %}

{#- The last step of a mart keyed by run (mcq_with_run) or by a pair of runs
    (mcq_with_run_pair): `relation`'s rows described by their run(s), as the contract's
    columns and types (contract_columns). -#}
{% macro mcq_run_mart_columns(relation) -%}
    select {{ contract_columns('described') }}
    from ({{ mcq_with_run(relation) }}) as described
{%- endmacro %}

{% macro mcq_run_pair_mart_columns(relation) -%}
    select {{ contract_columns('described') }}
    from ({{ mcq_with_run_pair(relation) }}) as described
{%- endmacro %}

{#- Each item's number within its task (from 0), over the distinct keys of the classified
    items: its bit in a set of items (macros/cross_db/bits.sql). One number per task, not per
    run, so that two runs' sets of the same items line up chunk by chunk, and the answers
    join to a table of the task's items, not to one row per item of every run. -#}
{% macro mcq_item_numbers() -%}
    select
        task,
        item_id,
        row_number() over (partition by task order by item_id) - 1 as item_no
    from (select distinct task, item_id from {{ ref('int_mcq_items_classified') }}) as items
{%- endmacro %}

{#- Per run, task, language, chunk of 63 items and option: the items answered with that
    option, as the bits of one word (macros/cross_db/bits.sql; items numbered within the task
    by mcq_item_numbers). Two such sets ANDed and counted are the items two languages, or two
    runs, both answered so. `where`: a further condition on the answers (alias answers). -#}
{% macro mcq_option_item_sets(where=none) -%}
    select
        answers.run_id,
        answers.task,
        answers.language,
        {{ item_chunk('item_numbers.item_no') }} as chunk,
        answers.chosen_option,
        bit_or({{ item_bit('item_numbers.item_no') }}) as items
    from {{ ref('int_mcq_answers_normalised') }} as answers
    inner join ({{ mcq_item_numbers() }}) as item_numbers
        on answers.task = item_numbers.task and answers.item_id = item_numbers.item_id
    where answers.is_valid{% if where %} and {{ where }}{% endif %}
    group by
        answers.run_id, answers.task, answers.language,
        {{ item_chunk('item_numbers.item_no') }}, answers.chosen_option
{%- endmacro %}

{#- Two runs of one task and variant on the same items (and the same `by`, further key
    columns): per unordered pair of runs (run_id_a < run_id_b) and `by`, the items both
    have in `relation`, counted by the boolean `outcome` of each: the 2 × 2 table of a
    paired comparison, all that concord_models.frames.model_pair_comparisons reads. -#}
{% macro mcq_run_pairs_2x2(relation, outcome, by=[]) -%}
    select
        a.task,
        a.variant,
        a.run_id as run_id_a,
        b.run_id as run_id_b,
        {%- for key in by %}
        a.{{ key }},
        {%- endfor %}
        count(*) as n_items,
        count(*) filter (where a.{{ outcome }} and b.{{ outcome }}) as n_both,
        count(*) filter (where a.{{ outcome }} and not b.{{ outcome }}) as n_only_a,
        count(*) filter (where b.{{ outcome }} and not a.{{ outcome }}) as n_only_b
    from {{ relation }} as a
    inner join {{ relation }} as b
        on a.task = b.task
        and a.variant = b.variant
        and a.item_id = b.item_id
        {%- for key in by %}
        and a.{{ key }} = b.{{ key }}
        {%- endfor %}
        and a.run_id < b.run_id
    group by a.task, a.variant, a.run_id, b.run_id
        {%- for key in by %}, a.{{ key }}{% endfor %}
{%- endmacro %}

{#- Items per run, task and `by` (further grouping columns) in each disagreement type, zero
    where a type does not occur, from int_mcq_items_classified rows in `relation`. -#}
{% macro mcq_type_counts(relation, by=[]) -%}
    {%- set keys = ['run_id', 'model', 'model_revision', 'variant', 'task'] + by -%}
    select
        {{ keys | join(',\n        ') }},
        max(n_languages) as n_languages,
        count(*) as n_items,
        count(*) filter (
            where disagreement_type not in ('full_agreement', 'incomplete')
        ) as n_disagree,
        {% for type in var('mcq_disagreement_types') %}
        count(*) filter (where disagreement_type = '{{ type }}') as n_{{ type }},
        {% endfor %}
        count(*) filter (where disagreement_type = 'incomplete') as n_incomplete
    from {{ relation }}
    group by {{ keys | join(', ') }}
{%- endmacro %}

{#- The config of a model incremental by `grain` groups (macros/mcq_incremental_groups.sql):
    `versions` is the Jinja of the versions relation (`"ref('int_mcq_runs_versioned')"`),
    since hooks are rendered when the model runs; the group filter goes in the model's SQL. -#}
{% macro mcq_incremental_by_group(versions, grain) -%}
    {%- set call = '(' ~ versions ~ ', ' ~ grain ~ ') }}' -%}
    {%- if grain | length != 1 -%}
        {#- Spark partitions the model by its group: one column -#}
        {{ exceptions.raise_compiler_error("mcq_incremental_by_group: one grain column, not " ~ grain) }}
    {%- endif -%}
    {%- set config = mcq_incremental_write(grain[0]) -%}
    {%- do config.update({
        'pre_hook': '{{ mcq_forget_changed_groups' ~ call,
        'post_hook': '{{ mcq_keep_group_versions' ~ call,
    }) -%}
    {{ return(config) }}
{%- endmacro %}
