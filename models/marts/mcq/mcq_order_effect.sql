{#- Base vs shuffled (order-control) run, one row per model that has both. Shifts are
    shuffled minus base. Option shares are compared by the presented letter (position bias)
    and by the original option it points to (content preference). -#}
with type_counts as (

    select * from {{ ref('int_mcq_types_counted') }}

),

option_counts as (

    select * from {{ ref('int_mcq_options_counted') }}

),

consistency as (

    select * from {{ ref('int_mcq_order_consistency_estimated') }}

),

both_runs as (

    select model
    from type_counts
    group by model
    having count(*) filter (where run = 'base') = 1
        and count(*) filter (where run = 'shuffled') = 1

),

types_by_run as (

    select
        model,
        {% for run in ['base', 'shuffled'] %}
        {% set last_run = loop.last %}
        max({{ share_pct('n_all_same', 'n_items - n_incomplete') }})
            filter (where run = '{{ run }}') as agreement_pct_{{ run }},
        {% for type in var('mcq_disagreement_types') %}
        max(n_{{ type }}) filter (where run = '{{ run }}')
            as n_{{ type }}_{{ run }}{{ "," if not (loop.last and last_run) }}
        {% endfor %}
        {% endfor %}
    from type_counts
    group by model

),

options_by_run as (

    select
        model,
        {% for lang in var('mcq_languages') %}
        {% set last_lang = loop.last %}
        {% for option in var('mcq_options') %}
        {% set cell = "language = '" ~ lang ~ "' and option = '" ~ option ~ "'" %}
        max({{ share_pct('n_presented', 'n_valid') }}) filter (
            where run = 'shuffled' and {{ cell }}
        )
        - max({{ share_pct('n_presented', 'n_valid') }}) filter (where run = 'base' and {{ cell }})
            as presented_shift_{{ lang }}_{{ option | lower }},
        max({{ share_pct('n_original', 'n_valid') }}) filter (where run = 'shuffled' and {{ cell }})
        - max({{ share_pct('n_original', 'n_valid') }}) filter (where run = 'base' and {{ cell }})
            as original_shift_{{ lang }}_{{ option | lower }}
        {{- "," if not (loop.last and last_lang) }}
        {% endfor %}
        {% endfor %}
    from option_counts
    group by model

),

consistency_by_language as (

    select
        model,
        {% for lang in var('mcq_languages') %}
        max(same_original_pct) filter (where language = '{{ lang }}')
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
        types_by_run.agreement_pct_base,
        types_by_run.agreement_pct_shuffled,
        types_by_run.agreement_pct_shuffled - types_by_run.agreement_pct_base
            as agreement_pct_diff,
        {% for type in var('mcq_disagreement_types') %}
        types_by_run.n_{{ type }}_base,
        types_by_run.n_{{ type }}_shuffled,
        types_by_run.n_{{ type }}_shuffled - types_by_run.n_{{ type }}_base as n_{{ type }}_diff,
        {% endfor %}
        {% for lang in var('mcq_languages') %}
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
