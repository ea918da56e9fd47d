with datasets as (select * from {{ ref('int_rater_datasets_described') }}),

items as (select * from {{ ref('int_rater_items_measured') }}),

coefficients as (select * from {{ ref('int_rater_coefficients_estimated') }}),

kappas as (

    {#- the summary's coefficients are rows of the coefficients mart, not a second copy:
        Randolph's free-marginal kappa is Brennan-Prediger's with the declared K -#}
    select
        dataset,
        max(case when coefficient = 'fleiss_kappa' then estimate end) as fleiss_kappa,
        max(case when coefficient = 'fleiss_kappa' then ci_low end) as fleiss_kappa_ci_low,
        max(case when coefficient = 'fleiss_kappa' then ci_high end) as fleiss_kappa_ci_high,
        max(case when coefficient = 'fleiss_kappa' then bootstrap_undefined_resamples end)
            as bootstrap_undefined_resamples,
        max(case when coefficient = 'fleiss_kappa' then null_reason end) as null_reason,
        max(case when coefficient = 'brennan_prediger' then estimate end) as randolph_kappa,
        max(case when coefficient = 'krippendorff_alpha' then estimate end)
            as krippendorff_alpha_nominal,
        max(bootstrap_confidence) as bootstrap_confidence,
        max(bootstrap_resamples) as bootstrap_resamples
    from coefficients
    where rater_id is null and weights = 'unweighted'
    group by dataset

),

item_means as (

    select
        dataset,
        count(*) as n_items,
        sum(case when n_raters >= 2 then 1 else 0 end) as n_items_pairable,
        min(n_raters) as min_raters_per_item,
        max(n_raters) as max_raters_per_item,
        avg(dispersion_index) as mean_dispersion_index,
        avg(fleiss_pi) as mean_fleiss_pi,
        avg(one_minus_pi) as mean_one_minus_pi,
        avg(group_disagreement) as mean_group_disagreement,
        avg(simpson_index) as mean_simpson_index,
        avg(gini_simpson) as mean_gini_simpson,
        avg(entropy_bits) as mean_entropy_bits,
        avg(entropy_nats) as mean_entropy_nats,
        avg(entropy_norm_k) as mean_entropy_norm_k,
        avg(entropy_norm_n) as mean_entropy_norm_n
    from items
    group by dataset

),

joined as (

    select
        item_means.*,
        datasets.dataset_kind,
        datasets.language,
        datasets.model,
        datasets.run,
        datasets.n_categories,
        kappas.fleiss_kappa,
        kappas.fleiss_kappa_ci_low,
        kappas.fleiss_kappa_ci_high,
        kappas.bootstrap_confidence,
        kappas.bootstrap_resamples,
        kappas.bootstrap_undefined_resamples,
        kappas.randolph_kappa,
        kappas.krippendorff_alpha_nominal,
        kappas.null_reason
    from item_means
    inner join datasets
        on item_means.dataset = datasets.dataset
    inner join kappas
        on item_means.dataset = kappas.dataset

),

final as (

    select {{ contract_columns('joined') }}
    from joined

)

select * from final
