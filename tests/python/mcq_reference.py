"""An independent reference for the cross-lingual marts, version 2 (issue 34): plain pandas and
Python, one function per mart, written from the definitions below and not from any SQL, so
that a test can hold a mart or the benchmark's floor query against it. Small inputs only.

Input: answers, one row per run, task, item and language answered: ``run_id``, ``model``,
``variant``, ``task``, ``item_id`` (text), ``language``, ``chosen_option`` (the item's own
option key, null when the answer is invalid) and ``presented_position`` (the 1-based
position at which the chosen option was shown, null when invalid); and the declared
languages (``mcq_languages``).

Definitions:

- A task's languages: the declared languages when there are any (a list: the same for
  every task, ``mcq_languages``; a mapping: task -> its own, ``mcq_task_languages.csv`` or
  its item files; an answer in another language is not compared), else every language
  present in any of the task's answers, valid or not.
- A run's languages (in a task): its task's languages in which the run has at least one
  answer row, valid or not. ``n_languages`` (n) is their count: every per-run figure below
  reads "the task's languages" as the run's.
- An item (of a run and task: any answer row) is complete when every one of the run's
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

Against gold (issue 37), the answers may carry ``gold``: the item's gold option in that
language (every record of an item and language that has one gives the same):

- Per run, task and language of the task (every run with an answer row in the task):
  ``n_gold_items`` the items of the task with a gold in the language (from any run);
  ``n_items`` those the run answered (valid or not); ``n_correct`` those whose chosen option
  is the gold (an invalid answer is wrong); ``accuracy_pct`` = 100 n_correct / n_items and
  ``accuracy_std_error`` = 100 x lm-evaluation-harness's ``mean_stderr`` of the 0/1
  outcomes (sample standard deviation / sqrt n; null for n < 2); ``coverage_pct`` = 100
  n_items / n_gold_items. Null figures where the denominator is 0.
- Per run and task: of the items with a gold in every language of the task that the run
  answered in every language (``n_items``), those correct in every language
  (``n_all_correct``), in none (``n_none_correct``), and answered with one option in every
  language, wrong in each (``n_consistently_wrong``); their percentages of ``n_items``.
- Per task, variant, pair of runs (run_id_a < run_id_b) and language: the items with a
  gold both answered (``n_items``), each run's ``accuracy_pct`` on them, and the items
  only a (``n_only_a``) and only b (``n_only_b``) answered correctly.
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import pandas as pd

OPTIONS = ("A", "B", "C", "D")
TYPES = ("full_agreement", "one_diverged", "majority", "no_majority", "incomplete")
RUN = ["run_id", "model", "variant"]


Declared = list[str] | dict[str, list[str]]


def _declared_for(task: str, declared: Declared) -> list[str]:
    """The languages ``task`` declares (none: empty)."""
    return list(declared) if isinstance(declared, list) else declared.get(task, [])


def _compared(answers: pd.DataFrame, declared: Declared) -> pd.DataFrame:
    """The answers in a language their task compares (all of a task declaring none)."""
    keep = [
        not _declared_for(task, declared) or language in _declared_for(task, declared)
        for task, language in zip(answers["task"], answers["language"], strict=True)
    ]
    return answers[keep]


def task_languages(answers: pd.DataFrame, declared: Declared) -> dict[tuple, list[str]]:
    """(run_id, task) -> the run's languages, sorted: its task's languages in which it has
    an answer row."""
    answers = _compared(answers, declared)
    languages = {}
    for task, rows in answers.groupby("task"):
        of_task = set(_declared_for(task, declared)) or set(rows["language"])
        for run_id, run in rows.groupby("run_id"):
            languages[(run_id, task)] = sorted(of_task & set(run["language"]))
    return languages


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


def item_agreement(answers: pd.DataFrame, declared: Declared) -> pd.DataFrame:
    """One row per run, task and item (any answer row), sorted by them."""
    answers = _compared(answers, declared)
    languages = task_languages(answers, declared)
    keys = [*RUN, "task", "item_id"]
    rows = []
    for key, item in answers.groupby(keys, sort=True):
        row = dict(zip(keys, key, strict=True))
        languages_of_run = languages[(row["run_id"], row["task"])]
        rows.append({**row, **classify(_valid_choices(item), languages_of_run)})
    return pd.DataFrame(rows)


def pairwise_agreement(answers: pd.DataFrame, declared: Declared) -> pd.DataFrame:
    """Per run and task: ``mean_pairwise_agreement_pct`` and ``n_language_pairs``."""
    answers = _compared(answers, declared)
    languages = task_languages(answers, declared)
    rows = []
    for (run_id, task), run in answers.groupby(["run_id", "task"], sort=True):
        valid = run[run["chosen_option"].notna()]
        # item -> language -> option; a language without a valid answer is absent
        by_item = valid.pivot(index="item_id", columns="language", values="chosen_option")
        pair_pcts = []
        for first, second in combinations(languages[(run_id, task)], 2):
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


def agreement_summary(answers: pd.DataFrame, declared: Declared) -> pd.DataFrame:
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
    answers: pd.DataFrame, declared: Declared, options: tuple[str, ...] = OPTIONS
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
    answers: pd.DataFrame, declared: Declared, options: tuple[str, ...] = OPTIONS
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


# ------------------------------------------------------------------------ against gold


def golds(answers: pd.DataFrame) -> dict[tuple[str, str, str], str]:
    """(task, item_id, language) -> the gold its records give."""
    given = answers.dropna(subset=["gold"]) if "gold" in answers else answers.iloc[:0]
    found: dict[tuple[str, str, str], str] = {}
    for task, item, language, gold in given[["task", "item_id", "language", "gold"]].values:
        assert found.setdefault((task, item, language), gold) == gold, (task, item, language)
    return found


def lm_eval_stderr_pct(outcomes: list[float]) -> float | None:
    """100 x lm_eval.api.metrics.mean_stderr: sample_stddev(arr) / sqrt(len(arr))."""
    n = len(outcomes)
    if n < 2:
        return None
    mu = sum(outcomes) / n
    return 100 * math.sqrt(sum((x - mu) ** 2 for x in outcomes) / (n - 1)) / math.sqrt(n)


def _graded(answers: pd.DataFrame) -> pd.DataFrame:
    """The answer rows with a gold, with ``gold_option`` and ``correct``."""
    gold = golds(answers)
    keys = list(zip(answers["task"], answers["item_id"], answers["language"], strict=True))
    graded = answers.assign(gold_option=[gold.get(key) for key in keys])
    graded = graded[graded["gold_option"].notna()]
    return graded.assign(correct=graded["chosen_option"].eq(graded["gold_option"]))


def accuracy(answers: pd.DataFrame, declared: Declared) -> pd.DataFrame:
    """One row per run, task and language of the task."""
    answers = _compared(answers, declared)
    languages = task_languages(answers, declared)
    gold = golds(answers)
    graded = _graded(answers)
    rows = []
    for (run_id, model, variant, task), _ in answers.groupby([*RUN, "task"], sort=True):
        for language in languages[(run_id, task)]:
            n_gold = sum(1 for t, _, lang in gold if (t, lang) == (task, language))
            cell = graded[
                (graded["run_id"] == run_id)
                & (graded["task"] == task)
                & (graded["language"] == language)
            ]
            outcomes = cell["correct"].astype(float).tolist()
            rows.append(
                {
                    "run_id": run_id,
                    "model": model,
                    "variant": variant,
                    "task": task,
                    "language": language,
                    "n_gold_items": n_gold,
                    "n_items": len(outcomes),
                    "n_correct": int(sum(outcomes)),
                    "accuracy_pct": _pct(int(sum(outcomes)), len(outcomes)),
                    "accuracy_std_error": lm_eval_stderr_pct(outcomes),
                    "coverage_pct": _pct(len(outcomes), n_gold),
                }
            )
    return pd.DataFrame(rows)


def accuracy_across_languages(answers: pd.DataFrame, declared: Declared) -> pd.DataFrame:
    """One row per run and task."""
    answers = _compared(answers, declared)
    languages = task_languages(answers, declared)
    graded = _graded(answers)
    rows = []
    for (run_id, model, variant, task), _ in answers.groupby([*RUN, "task"], sort=True):
        n_languages = len(languages[(run_id, task)])
        cell = graded[(graded["run_id"] == run_id) & (graded["task"] == task)]
        n = {"items": 0, "all_correct": 0, "none_correct": 0, "consistently_wrong": 0}
        for _, item in cell.groupby("item_id"):
            if len(item) != n_languages:
                continue
            n["items"] += 1
            n_correct = int(item["correct"].sum())
            n["all_correct"] += n_correct == n_languages
            n["none_correct"] += n_correct == 0
            chosen = item["chosen_option"]
            n["consistently_wrong"] += bool(
                n_correct == 0 and chosen.notna().all() and chosen.nunique() == 1
            )
        rows.append(
            {
                "run_id": run_id,
                "model": model,
                "variant": variant,
                "task": task,
                "n_languages": n_languages,
                **{f"n_{name}": count for name, count in n.items()},
                **{
                    f"{name}_pct": _pct(n[name], n["items"])
                    for name in ("all_correct", "none_correct", "consistently_wrong")
                },
            }
        )
    return pd.DataFrame(rows)


def model_accuracy_pairs(answers: pd.DataFrame, declared: Declared) -> pd.DataFrame:
    """One row per task, variant, pair of runs and language with an item both answered."""
    graded = _graded(_compared(answers, declared))
    rows = []
    for (task, variant, language), cell in graded.groupby(["task", "variant", "language"]):
        by_run = {run: g.set_index("item_id")["correct"] for run, g in cell.groupby("run_id")}
        for a, b in combinations(sorted(by_run), 2):
            both = by_run[a].to_frame("a").join(by_run[b].to_frame("b"), how="inner")
            if both.empty:
                continue
            rows.append(
                {
                    "task": task,
                    "variant": variant,
                    "run_id_a": a,
                    "run_id_b": b,
                    "language": language,
                    "n_items": len(both),
                    "accuracy_pct_a": 100 * both["a"].mean(),
                    "accuracy_pct_b": 100 * both["b"].mean(),
                    "n_only_a": int((both["a"] & ~both["b"]).sum()),
                    "n_only_b": int((both["b"] & ~both["a"]).sum()),
                }
            )
    return pd.DataFrame(rows)


def accuracy_pooled(answers: pd.DataFrame, declared: Declared, z: float) -> pd.DataFrame:
    """Per run and task with graded answers (docs/scorecard.md): accuracy over every graded
    answer of every language, and its error with the item as the unit, SE² = n/(n − 1) ·
    Σ (aᵢ − R mᵢ)² / (Σ mᵢ)², written out item by item."""
    graded = _graded(_compared(answers, declared))
    rows = []
    for (run_id, model, variant, task), run in graded.groupby([*RUN, "task"], sort=True):
        per_item = [(int(item["correct"].sum()), len(item)) for _, item in run.groupby("item_id")]
        n = len(per_item)
        total = sum(m for _, m in per_item)
        share = sum(a for a, _ in per_item) / total
        se = (
            (n / (n - 1) * sum((a - share * m) ** 2 for a, m in per_item)) ** 0.5 / total
            if n > 1
            else None
        )
        rows.append(
            {
                "run_id": run_id, "model": model, "variant": variant, "task": task,
                "n_items": n, "n_graded": total, "accuracy_pct": 100 * share,
                "std_error": None if se is None else 100 * se,
                "ci_low": None if se is None else max(0.0, 100 * (share - z * se)),
                "ci_high": None if se is None else min(100.0, 100 * (share + z * se)),
            }
        )  # fmt: skip
    return pd.DataFrame(rows)


def _alike(run: pd.DataFrame, shared: list[str]) -> dict[str, bool]:
    """item -> answered alike in the languages ``shared``, for the run's items complete in
    them."""
    out = {}
    for item_id, item in run.groupby("item_id"):
        chosen = _valid_choices(item)
        if shared and all(lang in chosen for lang in shared):
            out[item_id] = len({chosen[lang] for lang in shared}) == 1
    return out


def model_agreement_pairs(answers: pd.DataFrame, declared: Declared) -> pd.DataFrame:
    """One row per task, variant and pair of runs (run_id_a < run_id_b) with an item both
    answered completely in the languages both runs have: ``n_languages`` (those languages),
    ``n_items`` (the items), each run's ``full_agreement_pct`` on them (one option in every
    shared language) and the items alike in a only (``n_only_a``) and b only."""
    languages = task_languages(answers, declared)
    answers = _compared(answers, declared)
    rows = []
    for (task, variant), cell in answers.groupby(["task", "variant"]):
        for a, b in combinations(sorted(set(cell["run_id"])), 2):
            shared = sorted(set(languages[(a, task)]) & set(languages[(b, task)]))

            of_a, of_b = (_alike(cell[cell["run_id"] == run], shared) for run in (a, b))
            both = sorted(set(of_a) & set(of_b))
            if not both:
                continue
            rows.append(
                {
                    "task": task,
                    "variant": variant,
                    "run_id_a": a,
                    "run_id_b": b,
                    "n_languages": len(shared),
                    "n_items": len(both),
                    "full_agreement_pct_a": 100 * sum(of_a[i] for i in both) / len(both),
                    "full_agreement_pct_b": 100 * sum(of_b[i] for i in both) / len(both),
                    "n_only_a": sum(of_a[i] and not of_b[i] for i in both),
                    "n_only_b": sum(of_b[i] and not of_a[i] for i in both),
                }
            )
    return pd.DataFrame(rows)
