{#- Version 1 (deprecated): base vs shuffled run, one row per model that has both, with one
    column per type, language and option (shifts: shuffled − base). -#}
{{ config(materialized='view') }}

{%- set base = var('mcq_baseline_variant') -%}
with type_counts as (

    {{ mcq_v1_type_counts() }}

),

summary as (

    select
        summary.model,
        summary.variant as run,
        summary.full_agreement_pct as agreement_pct,
        {% for type in mcq_v1_types() %}
        type_counts.n_{{ type }}{{ ',' if not loop.last }}
        {% endfor %}
    from {{ ref('mcq_agreement_summary', v=2) }} as summary
    inner join type_counts using (model, variant)
    where summary.{{ mcq_v1_rows() }}

),

options as (

    select
        model,
        variant as run,
        language,
        option,
        pct_position as pct,
        pct_option as pct_original
    from {{ ref('mcq_option_frequency', v=2) }}
    where {{ mcq_v1_rows() }}

),

consistency as (

    select * from {{ ref('mcq_order_effect', v=2) }}
    where {{ mcq_v1_rows() }} and variant = 'shuffled'

),

both_runs as (

    select model
    from summary
    group by model
    having count(*) filter (where run = '{{ base }}') = 1
        and count(*) filter (where run = 'shuffled') = 1

),

types_by_run as (

    select
        model,
        {% for run, suffix in [(base, 'in_baseline'), ('shuffled', 'in_shuffled')] %}
        {% set last_run = loop.last %}
        max(agreement_pct) filter (where run = '{{ run }}') as agreement_pct_{{ suffix }},
        {% for type in mcq_v1_types() %}
        max(n_{{ type }}) filter (where run = '{{ run }}')
            as n_{{ type }}_{{ suffix }}{{ "," if not (loop.last and last_run) }}
        {% endfor %}
        {% endfor %}
    from summary
    group by model

),

options_by_run as (

    select
        model,
        {% for lang in mcq_v1_languages() %}
        {% set last_lang = loop.last %}
        {% for option in var('mcq_options') %}
        {% set cell = "language = '" ~ lang ~ "' and option = '" ~ option ~ "'" %}
        max(pct) filter (where run = 'shuffled' and {{ cell }})
        - max(pct) filter (where run = '{{ base }}' and {{ cell }})
            as presented_shift_{{ lang }}_{{ option | lower }},
        max(pct_original) filter (where run = 'shuffled' and {{ cell }})
        - max(pct_original) filter (where run = '{{ base }}' and {{ cell }})
            as original_shift_{{ lang }}_{{ option | lower }}
        {{- "," if not (loop.last and last_lang) }}
        {% endfor %}
        {% endfor %}
    from options
    group by model

),

consistency_by_language as (

    select
        model,
        {% for lang in mcq_v1_languages() %}
        max(same_option_pct) filter (where language = '{{ lang }}')
            as same_original_pct_{{ lang }},
        max(ci_low) filter (where language = '{{ lang }}') as same_original_ci_low_{{ lang }},
        max(ci_high) filter (where language = '{{ lang }}')
            as same_original_ci_high_{{ lang }}{{ "," if not loop.last }}
        {% endfor %}
    from consistency
    group by model

),

final as (

    select
        both_runs.model,
        types_by_run.agreement_pct_in_baseline as agreement_pct_base,
        types_by_run.agreement_pct_in_shuffled as agreement_pct_shuffled,
        types_by_run.agreement_pct_in_shuffled - types_by_run.agreement_pct_in_baseline
            as agreement_pct_diff,
        {% for type in mcq_v1_types() %}
        types_by_run.n_{{ type }}_in_baseline as n_{{ type }}_base,
        types_by_run.n_{{ type }}_in_shuffled as n_{{ type }}_shuffled,
        types_by_run.n_{{ type }}_in_shuffled - types_by_run.n_{{ type }}_in_baseline
            as n_{{ type }}_diff,
        {% endfor %}
        {% for lang in mcq_v1_languages() %}
        {% for option in var('mcq_options') %}
        options_by_run.presented_shift_{{ lang }}_{{ option | lower }},
        options_by_run.original_shift_{{ lang }}_{{ option | lower }},
        {% endfor %}
        consistency_by_language.same_original_pct_{{ lang }},
        consistency_by_language.same_original_ci_low_{{ lang }},
        consistency_by_language.same_original_ci_high_{{ lang }}{{ "," if not loop.last }}
        {% endfor %}
    from both_runs
    inner join types_by_run on both_runs.model = types_by_run.model
    inner join options_by_run on both_runs.model = options_by_run.model
    left join consistency_by_language on both_runs.model = consistency_by_language.model

)

select * from final
