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

final as (

    select
        item_means.dataset,
        datasets.dataset_kind,
        datasets.language,
        datasets.model,
        datasets.run,
        datasets.n_categories,
        cast(item_means.n_items as {{ dbt.type_bigint() }}) as n_items,
        cast(item_means.n_items_pairable as {{ dbt.type_bigint() }}) as n_items_pairable,
        item_means.min_raters_per_item,
        item_means.max_raters_per_item,
        {{ rater_as_double('kappas.fleiss_kappa') }} as fleiss_kappa,
        {{ rater_as_double('kappas.fleiss_kappa_ci_low') }} as fleiss_kappa_ci_low,
        {{ rater_as_double('kappas.fleiss_kappa_ci_high') }} as fleiss_kappa_ci_high,
        {{ rater_as_double('kappas.bootstrap_confidence') }} as bootstrap_confidence,
        cast(kappas.bootstrap_resamples as {{ dbt.type_bigint() }}) as bootstrap_resamples,
        cast(kappas.bootstrap_undefined_resamples as {{ dbt.type_bigint() }})
            as bootstrap_undefined_resamples,
        {{ rater_as_double('kappas.randolph_kappa') }} as randolph_kappa,
        {{ rater_as_double('kappas.krippendorff_alpha_nominal') }} as krippendorff_alpha_nominal,
        item_means.mean_dispersion_index,
        item_means.mean_fleiss_pi,
        item_means.mean_one_minus_pi,
        item_means.mean_group_disagreement,
        item_means.mean_simpson_index,
        item_means.mean_gini_simpson,
        item_means.mean_entropy_bits,
        item_means.mean_entropy_nats,
        item_means.mean_entropy_norm_k,
        item_means.mean_entropy_norm_n,
        cast(kappas.null_reason as {{ dbt.type_string() }}) as null_reason
    from item_means
    inner join datasets
        on item_means.dataset = datasets.dataset
    inner join kappas
        on item_means.dataset = kappas.dataset

)

select * from final
