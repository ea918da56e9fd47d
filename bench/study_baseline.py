"""A faithful re-implementation of the study's own pandas analysis (the baseline).

What the study's README and notebooks do, per merged file: read it, mark full agreement,
classify every row with a row-wise apply, count disagreements per domain, the Persian
option distribution and each language's entropy, then two bootstrap functions that each
re-read the file and loop `num_bootstrap` times over `df.sample(frac=1, replace=True)`;
finally one summary table across the models. Kept deliberately as the study wrote it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def compute_entropy(series):
    counts = series.value_counts(normalize=True)
    return -np.sum(counts * np.log2(counts))


def classify_row(row, p):
    en, fa, it = row[f"{p}_EN"], row[f"{p}_FA"], row[f"{p}_IT"]
    if en == it and en != fa:
        return "FA diverged"
    elif en == fa and en != it:
        return "IT diverged"
    elif fa == it and fa != en:
        return "EN diverged"
    elif en != fa and en != it and fa != it:
        return "All different"
    return "Other"


def _bootstrap_rate_interval(filepath, model_prefix, rate, num_bootstrap, confidence):
    """The study's bootstrap loop, shared by its two functions: each call re-reads the file
    and resamples it ``num_bootstrap`` times, as the study's functions each do (their cost
    is what the baseline times); ``rate`` turns a sample's full-agreement flags into the
    rate."""
    df = pd.read_csv(filepath)
    rates = []
    for _ in range(num_bootstrap):
        sample = df.sample(frac=1, replace=True)
        agree = (sample[f"{model_prefix}_EN"] == sample[f"{model_prefix}_FA"]) & (
            sample[f"{model_prefix}_EN"] == sample[f"{model_prefix}_IT"]
        )
        rates.append(rate(agree))
    lower = np.percentile(rates, (1 - confidence) / 2 * 100)
    upper = np.percentile(rates, (1 + confidence) / 2 * 100)
    return np.mean(rates), lower, upper


def bootstrap_agreement_confidence_interval(
    filepath, model_prefix, num_bootstrap=1000, confidence=0.95
):
    return _bootstrap_rate_interval(
        filepath, model_prefix, lambda agree: agree.mean(), num_bootstrap, confidence
    )


def bootstrap_disagreement_confidence_interval(
    filepath, model_prefix, num_bootstrap=1000, confidence=0.95
):
    return _bootstrap_rate_interval(
        filepath, model_prefix, lambda agree: 1 - agree.mean(), num_bootstrap, confidence
    )


def analyse(
    files: list[tuple[str, str]], num_bootstrap: int = 1000, with_bootstrap: bool = True
) -> pd.DataFrame:
    """files: (path, prefix) pairs. Returns the study's summary table."""
    summary = []
    for path, p in files:
        df = pd.read_csv(path)
        df["Full_Agreement"] = (df[f"{p}_EN"] == df[f"{p}_FA"]) & (df[f"{p}_EN"] == df[f"{p}_IT"])
        agreement_pct = df["Full_Agreement"].mean() * 100
        df["Disagreement_Type"] = df.apply(lambda row, p=p: classify_row(row, p), axis=1)
        domain = df[~df["Full_Agreement"]].groupby("Domain_EN").size()  # noqa: F841
        fa_dist = df[f"{p}_FA"].value_counts(normalize=True) * 100
        entropies = {lang: compute_entropy(df[f"{p}_{lang}"]) for lang in ("EN", "IT", "FA")}
        ci_agree = ci_disagree = None
        if with_bootstrap:
            ci_agree = bootstrap_agreement_confidence_interval(path, p, num_bootstrap)
            ci_disagree = bootstrap_disagreement_confidence_interval(path, p, num_bootstrap)
        summary.append(
            {
                "file": path,
                "agreement_pct": agreement_pct,
                **df["Disagreement_Type"].value_counts().to_dict(),
                **{f"FA_{k}": v for k, v in fa_dist.items()},
                **{f"entropy_{k}": v for k, v in entropies.items()},
                "agree_ci": ci_agree,
                "disagree_ci": ci_disagree,
            }
        )
    return pd.DataFrame(summary)
