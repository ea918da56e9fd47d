{#- The coefficient marts agree with each other: Light's kappa is the mean of the pair
    mart's Cohen's kappas (unweighted and with the declared weights), every dataset with two
    or more raters has all its pairs, and the summary's kappas are rows of the coefficients
    mart, not copies computed elsewhere. -#}
with coefficients as (select * from {{ ref('rater_agreement_coefficients') }}),

pairs as (select * from {{ ref('rater_pair_agreement') }}),

summary as (select * from {{ ref('rater_agreement_summary') }}),

pair_means as (

    select
        dataset,
        count(*) as n_pairs,
        avg(cohen_kappa) as mean_cohen_kappa
    from pairs
    group by dataset

),

unweighted as (

    select
        coefficients.dataset,
        coefficients.coefficient,
        coefficients.estimate,
        coefficients.n_raters,
        coalesce(pair_means.n_pairs, 0) as n_pairs,
        pair_means.mean_cohen_kappa
    from coefficients
    left join pair_means
        on coefficients.dataset = pair_means.dataset
    where coefficients.weights = 'unweighted'

),

light_mismatch as (

    select dataset, 'light_kappa is not the mean pairwise kappa' as problem
    from unweighted
    where coefficient = 'light_kappa'
        and abs(estimate - mean_cohen_kappa) > 1e-9

),

missing_pairs as (

    select dataset, 'rater pairs missing' as problem
    from unweighted
    where coefficient = 'fleiss_kappa'
        and n_pairs <> n_raters * (n_raters - 1) / 2

),

summary_mismatch as (

    select summary.dataset, 'summary fleiss_kappa differs from the coefficients mart' as problem
    from summary
    inner join unweighted
        on summary.dataset = unweighted.dataset
    where unweighted.coefficient = 'fleiss_kappa'
        and not (
            summary.fleiss_kappa = unweighted.estimate
            or (summary.fleiss_kappa is null and unweighted.estimate is null)
        )

)

select * from light_mismatch
union all
select * from missing_pairs
union all
select * from summary_mismatch
