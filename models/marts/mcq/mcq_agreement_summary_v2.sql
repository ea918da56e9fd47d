{#- Per run and task: the items of each disagreement type over the task's languages, full
    agreement and the headlines that do not shrink as languages are added (mean pairwise
    agreement; Fleiss' kappa with languages as raters, from the items' option counts), each
    with its interval. -#}
with type_counts as (select * from {{ ref('int_mcq_types_counted') }}),

bootstrapped as (

    select * from {{ ref('int_mcq_metrics_bootstrapped') }}
    where language is null

),

pairwise as (select * from {{ ref('int_mcq_pairwise_agreement_estimated') }}),

rates as (

    select
        run_id,
        task,
        {% set metrics = [
            'full_agreement_pct', 'disagreement_pct', 'no_majority_pct', 'fleiss_kappa'
        ] %}
        {% for metric in metrics %}
        max(estimate) filter (where metric = '{{ metric }}') as {{ metric }},
        max(ci_low) filter (where metric = '{{ metric }}')
            as {{ metric | replace('_pct', '') }}_ci_low,
        max(ci_high) filter (where metric = '{{ metric }}')
            as {{ metric | replace('_pct', '') }}_ci_high,
        {% endfor %}
        max(bootstrap_resamples) as bootstrap_resamples,
        max(bootstrap_confidence) as bootstrap_confidence
    from bootstrapped
    group by run_id, task

),

joined as (

    select
        type_counts.*,
        type_counts.n_items - type_counts.n_incomplete as n_complete,
        rates.full_agreement_pct,
        rates.full_agreement_ci_low,
        rates.full_agreement_ci_high,
        rates.disagreement_pct,
        rates.disagreement_ci_low,
        rates.disagreement_ci_high,
        rates.no_majority_pct,
        pairwise.n_language_pairs,
        pairwise.mean_pairwise_agreement_pct,
        pairwise.ci_low as mean_pairwise_agreement_ci_low,
        pairwise.ci_high as mean_pairwise_agreement_ci_high,
        rates.fleiss_kappa,
        rates.fleiss_kappa_ci_low,
        rates.fleiss_kappa_ci_high,
        rates.bootstrap_resamples,
        rates.bootstrap_confidence
    from type_counts
    left join rates using (run_id, task)
    left join pairwise using (run_id, task)

),

final as (

    select {{ contract_columns('joined') }}
    from joined

)

select * from final
