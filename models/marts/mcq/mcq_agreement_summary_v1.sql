{#- Version 1 (deprecated): the study's summary with its three-language columns. -#}
{{ config(materialized='view') }}

with summary as (

    select * from {{ ref('mcq_agreement_summary', v=2) }}
    where {{ mcq_v1_rows() }}

),

type_counts as (

    {{ mcq_v1_type_counts() }}

),

persian_options as (

    select
        model,
        variant as run,
        {% for option in var('mcq_options') %}
        max(pct_position) filter (where option = '{{ option }}') as fa_pct_{{ option | lower }}
        {{- ',' if not loop.last }}
        {% endfor %}
    from {{ ref('mcq_option_frequency', v=2) }}
    where {{ mcq_v1_rows() }} and language = 'fa'
    group by model, variant

),

entropy as (

    select
        model,
        variant as run,
        {% for lang in mcq_v1_languages() %}
        max(entropy_bits) filter (where language = '{{ lang }}') as entropy_{{ lang }}_bits
        {{- ',' if not loop.last }}
        {% endfor %}
    from {{ ref('mcq_choice_entropy', v=2) }}
    where {{ mcq_v1_rows() }}
    group by model, variant

),

final as (

    select
        summary.model,
        summary.variant as run,
        summary.n_items,
        summary.n_complete,
        summary.n_full_agreement,
        summary.full_agreement_pct as agreement_pct,
        summary.disagreement_pct,
        summary.no_majority_pct as all_different_pct,
        {% for type in mcq_v1_types() %}
        type_counts.n_{{ type }},
        {% endfor %}
        summary.n_incomplete,
        {% for option in var('mcq_options') %}
        persian_options.fa_pct_{{ option | lower }},
        {% endfor %}
        {% for lang in mcq_v1_languages() %}
        entropy.entropy_{{ lang }}_bits,
        {% endfor %}
        summary.full_agreement_ci_low as agreement_ci_low,
        summary.full_agreement_ci_high as agreement_ci_high,
        summary.disagreement_ci_low,
        summary.disagreement_ci_high
    from summary
    inner join type_counts using (model, variant)
    left join persian_options
        on summary.model = persian_options.model and summary.variant = persian_options.run
    left join entropy
        on summary.model = entropy.model and summary.variant = entropy.run

)

select * from final
