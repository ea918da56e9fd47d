"""An independent reference for the cross-lingual marts, version 2 (issue 34): plain pandas and
Python, one function per mart, written from the definitions below and not from any SQL, so
that a test can hold a mart or the benchmark's floor query against it. Small inputs only.

Input: answers, one row per run, task, item and language answered: ``run_id``, ``model``,
``variant``, ``task``, ``item_id`` (text), ``language``, ``chosen_option`` (the item's own
option key, null when the answer is invalid) and ``presented_position`` (the 1-based
position at which the chosen option was shown, null when invalid); and the declared
languages (``mcq_languages``).

Definitions:

- A task's languages: the declared languages when there are any (the same for every task;
  an answer in another language is not compared: the landing sets it aside), else every
  language present in any of the task's answers, valid or not. ``n_languages`` (n) is their
  count.
- An item (of a run and task: any answer row) is complete when every one of the task's
  languages has a valid answer; a language without an answer row is missing.
- ``majority_option``: the option held by more than n/2 languages on a complete item, else
  null; ``n_majority`` the languages choosing it.
- ``disagreement_type``: ``incomplete``; ``full_agreement`` (all n the same; n = 1: every
  complete item); ``one_diverged`` (n >= 3 and exactly n - 1 agree); ``majority`` (an option
  held by more than n/2, at least two languages depart); ``no_majority`` (no option held by
  more than n/2; with n = 2: they differ). ``departing_languages``: the languages whose
  option is not the majority's, sorted and joined with ``,``, for ``one_diverged`` and
  ``majority`` only.
- Per run and task: the counts of each type, ``full_agreement_pct`` and ``no_majority_pct``
  (out of the complete items; null when none), ``disagreement_pct`` = 100 -
  ``full_agreement_pct``, and ``mean_pairwise_agreement_pct``: the mean, over the pairs of
  the task's languages that share at least one item answered validly by both
  (``n_language_pairs``), of 100 x the items where both chose the same option / the items
  both answered validly.
- Per run, task, language (each language with an answer row in the run and task) and option
  (``options``, in order; ``option_position`` its 1-based index): ``n_option`` (valid
  answers choosing the key), ``n_position`` (valid answers shown at that position),
  ``n_valid``, and their percentages of ``n_valid`` (null when it is 0).
- ``entropy_bits``: the Shannon entropy, in bits, of a language's ``n_position`` counts
  (0 log 0 = 0); ``entropy_norm`` = ``entropy_bits`` / log2(number of options). Null when
  the language has no valid answer (and the normalised value when there is one option).
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import pandas as pd

OPTIONS = ("A", "B", "C", "D")
TYPES = ("full_agreement", "one_diverged", "majority", "no_majority", "incomplete")
RUN = ["run_id", "model", "variant"]


def task_languages(answers: pd.DataFrame, declared: list[str]) -> dict[str, list[str]]:
    """Each task's languages, sorted."""
    return {
        task: sorted(declared) if declared else sorted(set(rows["language"]))
        for task, rows in answers.groupby("task")
    }


def _compared(answers: pd.DataFrame, declared: list[str]) -> pd.DataFrame:
    """The answers in the study's languages (all of them when none is declared)."""
    return answers[answers["language"].isin(declared)] if declared else answers


def _valid_choices(item: pd.DataFrame) -> dict[str, str]:
    """language -> its chosen option, for the languages answering validly."""
    valid = item[item["chosen_option"].notna()]
    return dict(zip(valid["language"], valid["chosen_option"], strict=True))


def classify(chosen: dict[str, str], languages: list[str]) -> dict:
    """One item: ``chosen`` (language -> valid option) against the task's ``languages``."""
    n = len(languages)
    n_valid = sum(language in chosen for language in languages)
    complete = n_valid == n
    counts = Counter(chosen[language] for language in languages if language in chosen)
    top_option, n_top = counts.most_common(1)[0] if counts else (None, 0)
    majority = top_option if complete and n_top > n / 2 else None
    if not complete:
        kind = "incomplete"
    elif n_top == n:
        kind = "full_agreement"
    elif n >= 3 and n_top == n - 1:
        kind = "one_diverged"
    elif majority is not None:
        kind = "majority"
    else:
        kind = "no_majority"
    departing = None
    if kind in ("one_diverged", "majority"):
        departing = ",".join(sorted(lang for lang in languages if chosen[lang] != majority))
    return {
        "n_languages": n,
        "n_valid": n_valid,
        "majority_option": majority,
        "n_majority": n_top if majority is not None else None,
        "full_agreement": (n_top == n) if complete else None,
        "disagreement_type": kind,
        "departing_languages": departing,
    }


def item_agreement(answers: pd.DataFrame, declared: list[str]) -> pd.DataFrame:
    """One row per run, task and item (any answer row), sorted by them."""
    answers = _compared(answers, declared)
    languages = task_languages(answers, declared)
    keys = [*RUN, "task", "item_id"]
    rows = []
    for key, item in answers.groupby(keys, sort=True):
        row = dict(zip(keys, key, strict=True))
        rows.append({**row, **classify(_valid_choices(item), languages[row["task"]])})
    return pd.DataFrame(rows)


def pairwise_agreement(answers: pd.DataFrame, declared: list[str]) -> pd.DataFrame:
    """Per run and task: ``mean_pairwise_agreement_pct`` and ``n_language_pairs``."""
    answers = _compared(answers, declared)
    languages = task_languages(answers, declared)
    rows = []
    for (run_id, task), run in answers.groupby(["run_id", "task"], sort=True):
        valid = run[run["chosen_option"].notna()]
        # item -> language -> option; a language without a valid answer is absent
        by_item = valid.pivot(index="item_id", columns="language", values="chosen_option")
        pair_pcts = []
        for first, second in combinations(languages[task], 2):
            if first not in by_item or second not in by_item:
                continue
            both = by_item[[first, second]].dropna()
            if len(both):
                pair_pcts.append(100 * (both[first] == both[second]).mean())
        rows.append(
            {
                "run_id": run_id,
                "task": task,
                "mean_pairwise_agreement_pct": (
                    sum(pair_pcts) / len(pair_pcts) if pair_pcts else None
                ),
                "n_language_pairs": len(pair_pcts),
            }
        )
    return pd.DataFrame(rows)


def _pct(part: int, whole: int) -> float | None:
    return 100 * part / whole if whole else None


def agreement_summary(answers: pd.DataFrame, declared: list[str]) -> pd.DataFrame:
    """One row per run and task."""
    items = item_agreement(answers, declared)
    keys = [*RUN, "task"]
    rows = []
    for key, run in items.groupby(keys, sort=True):
        counts = run["disagreement_type"].value_counts()
        n = {kind: int(counts.get(kind, 0)) for kind in TYPES}
        n_complete = len(run) - n["incomplete"]
        full_pct = _pct(n["full_agreement"], n_complete)
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "n_languages": int(run["n_languages"].iloc[0]),
                "n_items": len(run),
                "n_complete": n_complete,
                **{f"n_{kind}": n[kind] for kind in TYPES},
                "full_agreement_pct": full_pct,
                "no_majority_pct": _pct(n["no_majority"], n_complete),
                "disagreement_pct": None if full_pct is None else 100 - full_pct,
            }
        )
    summary = pd.DataFrame(rows)
    return summary.merge(pairwise_agreement(answers, declared), on=["run_id", "task"])


def option_frequency(
    answers: pd.DataFrame, declared: list[str], options: tuple[str, ...] = OPTIONS
) -> pd.DataFrame:
    """One row per run, task, language with an answer row, and option."""
    answers = _compared(answers, declared)
    keys = [*RUN, "task", "language"]
    rows = []
    for key, group in answers.groupby(keys, sort=True):
        valid = group[group["chosen_option"].notna()]
        n_valid = len(valid)
        for position, option in enumerate(options, start=1):
            n_option = int((valid["chosen_option"] == option).sum())
            n_position = int((valid["presented_position"] == position).sum())
            rows.append(
                {
                    **dict(zip(keys, key, strict=True)),
                    "option": option,
                    "option_position": position,
                    "n_option": n_option,
                    "n_position": n_position,
                    "n_valid": n_valid,
                    "pct_option": _pct(n_option, n_valid),
                    "pct_position": _pct(n_position, n_valid),
                }
            )
    return pd.DataFrame(rows)


def entropy_bits(counts: list[int]) -> float | None:
    """H = -sum p log2 p over the counts' shares (0 log 0 = 0); None when they sum to 0."""
    total = sum(counts)
    if total == 0:
        return None
    return sum(-(c / total) * math.log2(c / total) for c in counts if c)


def choice_entropy(
    answers: pd.DataFrame, declared: list[str], options: tuple[str, ...] = OPTIONS
) -> pd.DataFrame:
    """One row per run, task and language with an answer row."""
    frequency = option_frequency(answers, declared, options)
    keys = [*RUN, "task", "language"]
    rows = []
    for key, group in frequency.groupby(keys, sort=True):
        bits = entropy_bits(group.sort_values("option_position")["n_position"].tolist())
        norm = None
        if bits is not None and len(options) > 1:
            norm = bits / math.log2(len(options))
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "entropy_bits": bits,
                "entropy_norm": norm,
            }
        )
    return pd.DataFrame(rows)
