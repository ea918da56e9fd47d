"""Write answer files of any size into a copy of the project (for the benchmarks), and small
studies with a planted answer (for the tests).

Items cycle through the 60 real scenarios (so domains stay aligned across languages); each
model answers English at random and keeps the English letter in Italian and Persian with
a model-specific probability, so agreement rates differ between models as in the study.
Half of the files are base runs, half shuffled (DCBA) runs of the same models.
``generate_long`` and ``generate_languages`` write long-format Parquet instead (the latter
for many languages and a task of its own); ``planted`` gives the small studies.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

LANGS = ("EN", "FA", "IT")
LETTERS = np.array(list("ABCD"))


def generate(project_dir: Path, n_items: int, n_files: int, seed: int = 0) -> list[Path]:
    """Replace the answer files and registry of ``project_dir`` with generated ones."""
    seeds = Path(project_dir) / "seeds" / "mcq"
    shipped = sorted((seeds / "answers").glob("*.csv"))
    template = pd.read_csv(shipped[0], encoding="utf-8-sig", dtype=str)
    text = template[[c for c in template.columns if not c.startswith(("GPT4o_",))]]
    text_columns = [c for c in text.columns if c.split("_")[-1] in LANGS]
    for path in shipped:
        path.unlink()
    rows = text.iloc[np.arange(n_items) % len(text)].reset_index(drop=True)
    rng = np.random.default_rng(seed)
    registry, written = [], []
    n_models = max(1, n_files // 2)
    for index in range(n_files):
        model = index % n_models
        run = "base" if index < n_models else "shuffled"
        prefix = f"M{model:02d}"
        keep = 0.3 + 0.6 * model / max(1, n_models - 1)  # how often IT/FA repeat EN
        en = rng.integers(0, 4, n_items)
        answers = {"EN": en}
        for lang in ("IT", "FA"):
            same = rng.random(n_items) < keep
            answers[lang] = np.where(same, en, rng.integers(0, 4, n_items))
        frame = rows[text_columns].copy()
        for lang in LANGS:
            frame[f"{prefix}_{lang}"] = LETTERS[answers[lang]]
        name = f"{prefix}_{run}_Merged_Multilingual.csv"
        frame.to_csv(seeds / "answers" / name, index=False, encoding="utf-8-sig")
        registry.append(
            (name, f"Model {model:02d}", prefix, run, "ABCD" if run == "base" else "DCBA")
        )
        written.append(seeds / "answers" / name)
    pd.DataFrame(
        registry, columns=["file", "model", "prefix", "run", "presented_option_order"]
    ).to_csv(seeds / "mcq_answer_registry.csv", index=False)
    return written


def _replace_answer_registries(seeds: Path, sources_line: str) -> Path:
    """Remove the wide answer files and their registry lines; register the long files of
    ``sources_line`` instead. The answer sources folder, made where missing."""
    for path in (seeds / "answers").glob("*.csv"):
        path.unlink()
    seeds.mkdir(parents=True, exist_ok=True)
    (seeds / "mcq_answer_registry.csv").write_text("file,model,prefix,run,presented_option_order\n")
    (seeds / "mcq_answer_sources.csv").write_text(
        "file,format,model,run,language,presented_option_order,item_key,task_pattern,domain_field\n"
        + sources_line
    )
    sources = seeds / "answer_sources"
    sources.mkdir(exist_ok=True)
    return sources


def generate_long(project_dir: Path, n_rows: int, n_files: int = 10, seed: int = 0) -> list[Path]:
    """Replace every answer file of ``project_dir`` with long-format Parquet files holding
    about ``n_rows`` answer rows (model, run, item_id, language, answer) in ``n_files``
    files, written by DuckDB without holding them in Python: 20 models, base and shuffled
    runs, items 1..n, three languages; English at random, Italian and Persian repeating it
    with a model-specific probability. Items beyond the 60 of the item files have no domain
    (reported as "(not in the item files)")."""
    import duckdb

    seeds = Path(project_dir) / "seeds" / "mcq"
    sources = _replace_answer_registries(seeds, "answers_*.parquet,long,,,,,,,\n")
    n_cells = 40  # 20 models x 2 runs
    n_items = max(1, n_rows // (3 * n_cells))
    per_file = -(-n_cells // n_files)
    written = []
    with duckdb.connect() as con:
        con.execute(f"select setseed({(seed % 1000) / 1000})")
        for index in range(n_files):
            cells = range(index * per_file, min(n_cells, (index + 1) * per_file))
            if not cells:
                break
            path = sources / f"answers_{index:03d}.parquet"
            con.execute(
                f"""
                copy (
                    with cells as (select unnest(range({cells.start}, {cells.stop})) as cell),
                    items as (
                        select cell, item_id, floor(random() * 4)::int as en
                        from cells, range(1, {n_items} + 1) as r(item_id)
                    )
                    select
                        'Model ' || lpad((cell // 2)::varchar, 2, '0') as model,
                        case when cell % 2 = 0 then 'base' else 'shuffled' end as run,
                        item_id,
                        language,
                        chr(65 + case
                            when language = 'en' then en
                            when random() < 0.3 + 0.6 * (cell // 2) / 19 then en
                            else floor(random() * 4)::int
                        end) as answer
                    from items, (values ('en'), ('it'), ('fa')) as l(language)
                ) to '{path}' (format parquet)
                """
            )
            written.append(path)
    return written


#: Languages of a generated study, in the order they are taken: valid BCP 47 tags, each its
#: own canonical form and an individual language (nb, not the macrolanguage no; none of
#: ar, fa, zh, ms, sw, et, lv, which name macrolanguages), so no two can be read as one.
LANGUAGE_POOL = (
    "en", "de", "fr", "es", "it", "pt", "nl", "sv", "da", "nb",
    "fi", "pl", "cs", "sk", "sl", "hr", "bg", "ro", "hu", "el",
    "tr", "ru", "uk", "he", "hi", "bn", "ta", "te", "mr", "ja",
    "ko", "vi", "th", "id", "ca", "eu", "gl", "is", "lt", "ga",
    "cy", "af", "ka", "hy", "mk", "sr", "ur",
)  # fmt: skip


@dataclass(frozen=True)
class GeneratedStudy:
    """What :func:`generate_languages` wrote: the study's languages (the first is the pivot),
    its files and how many answer rows they hold."""

    languages: list[str]
    files: list[Path]
    answer_rows: int

    def dbt_vars(self) -> str:
        """The ``--vars`` a dbt call needs to compare these languages (JSON, which dbt reads
        as YAML)."""
        return json.dumps({"mcq_languages": self.languages})


def generate_languages(
    project_dir: Path,
    n_languages: int = 40,
    n_items: int = 10_000,
    n_models: int = 10,
    variants: tuple[str, ...] = ("base", "shuffled"),
    task: str = "xling",
    seed: int = 0,
    n_files: int = 4,
) -> GeneratedStudy:
    """Replace every answer file of ``project_dir`` with long-format Parquet (model, run,
    task, item_id as text, language, answer A-D) of ``n_models`` x ``variants`` runs of one
    task, items 1..``n_items``, in ``n_languages`` languages, written by DuckDB in at most
    ``n_files`` files (each holds whole runs). Each model answers the pivot language (the
    first) at random and repeats that letter in each other language with a model-specific
    probability (0.3 for the first model to 0.9 for the last), else answers at random. The
    draws are hashes of (seed, run, item, language), not a random() stream, so a file is
    the same whatever DuckDB's thread count. Items of a task other than xcloze have no
    domain."""
    import duckdb

    if not 1 <= n_languages <= len(LANGUAGE_POOL):
        raise ValueError(f"n_languages must be 1 to {len(LANGUAGE_POOL)}, not {n_languages}")
    languages = list(LANGUAGE_POOL[:n_languages])
    seeds = Path(project_dir) / "seeds" / "mcq"
    sources = _replace_answer_registries(seeds, "languages_*.parquet,long,,,,,,,\n")
    runs = [(model, variant) for model in range(n_models) for variant in variants]
    per_file = -(-len(runs) // max(1, n_files))
    listed = ", ".join(f"({i}, '{lang}')" for i, lang in enumerate(languages))
    written = []
    with duckdb.connect() as con:
        for index in range(0, len(runs), per_file):
            cells = ", ".join(
                f"({model}, '{variant}')" for model, variant in runs[index : index + per_file]
            )
            path = sources / f"languages_{index // per_file:03d}.parquet"
            con.execute(
                f"""
                copy (
                    with cells(model_index, run) as (values {cells}),
                    languages(language_index, language) as (values {listed}),
                    pivots as (
                        select
                            model_index,
                            run,
                            0.3 + 0.6 * model_index / {max(1, n_models - 1)} as keep,
                            r.item,
                            hash({seed}, 'pivot', model_index, run, r.item) % 4 as pivot_answer
                        from cells, range(1, {n_items} + 1) as r(item)
                    )
                    select
                        'Model ' || lpad(model_index::varchar, 2, '0') as model,
                        run,
                        '{task}' as task,
                        item::varchar as item_id,
                        language,
                        chr(65 + (case
                            when language_index = 0 then pivot_answer
                            when hash({seed}, 'keep', model_index, run, item, language_index)
                                % 1000000 < keep * 1000000 then pivot_answer
                            else hash({seed}, 'other', model_index, run, item, language_index) % 4
                        end)::int) as answer
                    from pivots, languages
                ) to '{path}' (format parquet)
                """
            )
            written.append(path)
    return GeneratedStudy(languages, written, len(runs) * n_items * n_languages)


# --------------------------------------------------------------------- planted studies


@dataclass(frozen=True)
class Planted:
    """A small study whose figures are known by hand: long answers (model, run, task,
    item_id, language, answer) and the declared languages (``mcq_languages``)."""

    answers: pd.DataFrame
    languages: list[str]


def _answers(rows: list[tuple[str, str, str]], task: str = "xling") -> pd.DataFrame:
    """(item_id, language, answer) rows of model M's base run."""
    frame = pd.DataFrame(rows, columns=["item_id", "language", "answer"])
    return frame.assign(model="M", run="base", task=task)[
        ["model", "run", "task", "item_id", "language", "answer"]
    ]


def planted(pattern: str, n_items: int = 6) -> Planted:
    """The study of ``pattern`` (one of :data:`PLANTED`), one model and run:

    - ``one_diverges``: 8 languages; on every item 7 agree and ``it`` chooses another option.
    - ``two_two``: 4 languages split 2-2 on every item (which pairs agree changes by item).
    - ``two_languages``: ``en`` and ``it`` agree on items 1-3 and differ on item 4.
    - ``one_item``: 5 languages, one item: ``en``, ``de``, ``fr`` choose A, ``it`` B, ``es`` C.
    - ``missing_language``: ``en``, ``de`` and ``fa`` declared, only ``en`` and ``de``
      answer (and agree): the run is compared in en and de, and every item agrees.
    """
    letters = "ABCD"
    rows: list[tuple[str, str, str]] = []
    if pattern == "one_diverges":
        languages = ["en", "de", "fr", "es", "it", "pt", "nl", "sv"]
        for item in range(1, n_items + 1):
            agreed, other = letters[item % 4], letters[(item + 1) % 4]
            rows += [(str(item), lang, other if lang == "it" else agreed) for lang in languages]
    elif pattern == "two_two":
        languages = ["en", "de", "fr", "it"]
        for item in range(1, n_items + 1):
            first = ("en", "de") if item % 2 else ("en", "fr")
            pair_option, rest_option = letters[item % 4], letters[(item + 2) % 4]
            rows += [
                (str(item), lang, pair_option if lang in first else rest_option)
                for lang in languages
            ]
    elif pattern == "two_languages":
        languages = ["en", "it"]
        for item, (en, it) in enumerate([("A", "A"), ("B", "B"), ("C", "C"), ("A", "D")], 1):
            rows += [(str(item), "en", en), (str(item), "it", it)]
    elif pattern == "one_item":
        languages = ["en", "de", "fr", "it", "es"]
        rows = [("1", lang, {"it": "B", "es": "C"}.get(lang, "A")) for lang in languages]
    elif pattern == "missing_language":
        languages = ["en", "de", "fa"]
        for item in range(1, n_items + 1):
            rows += [(str(item), lang, letters[item % 4]) for lang in ("en", "de")]
    else:
        raise ValueError(f"pattern {pattern!r} is not one of {', '.join(PLANTED)}")
    return Planted(_answers(rows), languages)


PLANTED = ("one_diverges", "two_two", "two_languages", "one_item", "missing_language")


def planted_gold() -> pd.DataFrame:
    """A study with gold, task ``graded``: long answers (model, run, task, item_id,
    language, answer, gold) of models M and N, base run, in en, de and fr, items 1-6, each
    record with its item's gold in its language:

    - gold: item 1 A, 2 B, 3 C, 4 D, 5 A (in fr: B), 6 none;
    - M: item 1 right in every language; 2 the same wrong option (C) in every language; 3
      right in en, invalid in de (``E``), wrong in fr; 4 another wrong option in each
      language; 5 A everywhere (right in en and de, wrong in fr); 6 answered, no gold;
    - N: item 1 right in en and fr, wrong in de; 2 and 4 right everywhere; 3 right in en
      and de, not answered in fr; 5 B everywhere (right in fr only); 6 answered, no gold.
    """
    gold = {"1": "A", "2": "B", "3": "C", "4": "D", "5": "A", "6": None}
    answers = {
        "M": {"1": "AAA", "2": "CCC", "3": "CED", "4": "ABC", "5": "AAA", "6": "AAA"},
        "N": {"1": "ABA", "2": "BBB", "3": "CC", "4": "DDD", "5": "BBB", "6": "BBB"},
    }
    rows = []
    for model, by_item in answers.items():
        for item, letters in by_item.items():
            for language, answer in zip(("en", "de", "fr"), letters, strict=False):
                item_gold = "B" if (item, language) == ("5", "fr") else gold[item]
                rows.append((model, "base", "graded", item, language, answer, item_gold))
    return pd.DataFrame(
        rows, columns=["model", "run", "task", "item_id", "language", "answer", "gold"]
    )


def as_landed(answers: pd.DataFrame, options: str = "ABCD") -> pd.DataFrame:
    """What the landing makes of generated answers (every run presented in the order
    ``options``): ``run_id`` (``<model>--<run>``), ``variant``, ``chosen_option`` (the
    letter; null when it is no option) and ``presented_position`` (its 1-based position)."""
    valid = answers["answer"].where(answers["answer"].isin(list(options)))
    return answers.assign(
        run_id=answers["model"] + "--" + answers["run"],
        variant=answers["run"],
        chosen_option=valid,
        presented_position=valid.map(lambda key: options.index(key) + 1, na_action="ignore").astype(
            "Int64"
        ),
    ).drop(columns=["run", "answer"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("project_dir", type=Path)
    parser.add_argument("--items", type=int, help="default 1000 (10000 with --languages)")
    parser.add_argument("--files", type=int, help="default 20 (4 with --languages)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--languages",
        type=int,
        metavar="N",
        help="long-format Parquet in N languages instead (generate_languages: --items "
        "defaults to 10000, --files to 4); prints the --vars a dbt call needs",
    )
    parser.add_argument("--models", type=int, default=10, help="with --languages")
    args = parser.parse_args()
    if args.languages is not None:
        study = generate_languages(
            args.project_dir,
            n_languages=args.languages,
            n_items=args.items or 10_000,
            n_models=args.models,
            seed=args.seed,
            n_files=args.files or 4,
        )
        print(f"{study.answer_rows:,} answer rows in {len(study.files)} files")
        print(f"--vars '{study.dbt_vars()}'")
        return
    generate(args.project_dir, args.items or 1000, args.files or 20, args.seed)


if __name__ == "__main__":
    main()
