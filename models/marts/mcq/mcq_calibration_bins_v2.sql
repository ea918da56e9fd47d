{#- The reliability diagram's points: per run, task, language, distribution ('summed': the
    softmax of the summed log-likelihoods, as acc; 'length_normalised': per character, as
    acc_norm) and confidence bin of the top option, the scored items with a gold in it, its
    mean confidence and the share its top option got right (both 0–1; version 1 gave the
    share in %), beside the bin's bounds
    (b = var mcq_calibration_bins equal-width bins; docs/formulas.md). The expected
    calibration error of mcq_accuracy is the n-weighted mean gap between the two. An empty
    bin has no row; an item without any probability has no bin and is not here. -#}
{% set n_bins = var('mcq_calibration_bins') %}

with binned as (

    select * from {{ ref('int_mcq_calibration_binned') }}
    where calibration_bin is not null

),

measured as (

    select
        run_id,
        task,
        language,
        distribution,
        calibration_bin,
        cast(calibration_bin as double) / {{ n_bins }} as bin_low,
        cast(calibration_bin + 1 as double) / {{ n_bins }} as bin_high,
        n_items,
        n_correct,
        confidence_sum / n_items as mean_confidence,
        -- in the unit of mean_confidence (0–1): the diagram's two axes are one scale
        cast(n_correct as double) / n_items as accuracy
    from binned

),

final as (

    {{ mcq_run_mart_columns('measured') }}

)

select * from final
