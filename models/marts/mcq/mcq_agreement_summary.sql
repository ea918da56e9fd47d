with type_counts as (

    select * from {{ ref('int_mcq_types_counted') }}

),

option_counts as (

    select * from {{ ref('int_mcq_options_counted') }}

),

bootstrapped as (

    select * from {{ ref('int_mcq_metrics_bootstrapped') }}

),

rates as (

    select
        *,
        n_items - n_incomplete as n_complete,
        100.0 * n_all_same / nullif(n_items - n_incomplete, 0) as agreement_pct,
        100.0 * n_all_different / nullif(n_items - n_incomplete, 0) as all_different_pct
    from type_counts

),

persian_options as (

    select
        model,
        run,
        {% for option in var('mcq_options') %}
        100.0 * sum(n_presented) filter (where option = '{{ option }}') / nullif(max(n_valid), 0)
            as fa_pct_{{ option | lower }}{{ "," if not loop.last }}
        {% endfor %}
    from option_counts
    where language = 'fa'
    group by model, run

),

metrics as (

    select
        model,
        run,
        {% for lang in var('mcq_languages') %}
        max(estimate) filter (where metric = 'entropy_{{ lang }}_bits') as entropy_{{ lang }}_bits,
        {% endfor %}
        max(ci_low) filter (where metric = 'agreement_pct') as agreement_ci_low,
        max(ci_high) filter (where metric = 'agreement_pct') as agreement_ci_high,
        max(ci_low) filter (where metric = 'disagreement_pct') as disagreement_ci_low,
        max(ci_high) filter (where metric = 'disagreement_pct') as disagreement_ci_high
    from bootstrapped
    group by model, run

),

final as (

    select
        rates.model,
        rates.run,
        rates.n_items,
        rates.n_complete,
        rates.n_all_same as n_full_agreement,
        rates.agreement_pct,
        100.0 - rates.agreement_pct as disagreement_pct,
        rates.all_different_pct,
        rates.n_all_same,
        rates.n_fa_diverged,
        rates.n_it_diverged,
        rates.n_en_diverged,
        rates.n_all_different,
        rates.n_incomplete,
        persian_options.fa_pct_a,
        persian_options.fa_pct_b,
        persian_options.fa_pct_c,
        persian_options.fa_pct_d,
        metrics.entropy_en_bits,
        metrics.entropy_it_bits,
        metrics.entropy_fa_bits,
        metrics.agreement_ci_low,
        metrics.agreement_ci_high,
        metrics.disagreement_ci_low,
        metrics.disagreement_ci_high
    from rates
    left join persian_options
        on rates.model = persian_options.model and rates.run = persian_options.run
    left join metrics
        on rates.model = metrics.model and rates.run = metrics.run

)

select * from final
