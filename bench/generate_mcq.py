"""Write merged answer files of any size into a copy of the project (for the benchmarks).

Items cycle through the 60 real scenarios (so domains stay aligned across languages); each
model answers English at random and keeps the English letter in Italian and Persian with
a model-specific probability, so agreement rates differ between models as in the study.
Half of the files are base runs, half shuffled (DCBA) runs of the same models.
"""

from __future__ import annotations

import argparse
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


def generate_long(project_dir: Path, n_rows: int, n_files: int = 10, seed: int = 0) -> list[Path]:
    """Replace every answer file of ``project_dir`` with long-format Parquet files holding
    about ``n_rows`` answer rows (model, run, item_id, language, answer) in ``n_files``
    files, written by DuckDB without holding them in Python: 20 models, base and shuffled
    runs, items 1..n, three languages; English at random, Italian and Persian repeating it
    with a model-specific probability. Items beyond the 60 of the item files have no domain
    (reported as "(not in the item files)")."""
    import duckdb

    seeds = Path(project_dir) / "seeds" / "mcq"
    for path in (seeds / "answers").glob("*.csv"):
        path.unlink()
    (seeds / "mcq_answer_registry.csv").write_text("file,model,prefix,run,presented_option_order\n")
    sources = seeds / "answer_sources"
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
    (seeds / "mcq_answer_sources.csv").write_text(
        "file,format,model,run,language,presented_option_order,item_key,task_pattern\n"
        "answers_*.parquet,long,,,,,,\n"
    )
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("project_dir", type=Path)
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    generate(args.project_dir, args.items, args.files, args.seed)


if __name__ == "__main__":
    main()
