"""Per run and task: the mean pairwise agreement with its normal-approximation interval,
from the point figure and linearised standard error int_mcq_pairwise_agreement_summed
computes set-based (z from statistics.NormalDist: no scipy in a dbt Python model)."""

from statistics import NormalDist

from concord_common.settings import dbt_vars
from concord_io.frames import to_pandas


def model(dbt, session):
    dbt.config(materialized="table")
    (confidence,) = dbt_vars(dbt.config.get("vars"), "bootstrap_confidence")
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    summed = to_pandas(dbt.ref("int_mcq_pairwise_agreement_summed"))
    half = z * summed["std_error"].astype("float64")
    estimate = summed["mean_pairwise_agreement_pct"].astype("float64")
    return summed.assign(
        # an interval never leaves the range a share can take
        ci_low=(estimate - half).clip(lower=0.0),
        ci_high=(estimate + half).clip(upper=100.0),
        confidence=confidence,
    )
