"""Benchmark: the cross-lingual marts (v2) at 40 languages x 10 000 items x 10 models x 2
variants of one task (8 M answer rows), against a hand-written DuckDB floor.

The answers are long-format Parquet written by `generate_mcq.generate_languages` into a
temporary copy of the project. Ours: `dbt build --select +path:models/marts/mcq` with the
languages as `--vars` (the project's dbt plugin lands the files first), parsed once before,
as bench/bench_mcq.py times it: wall time and peak memory (max RSS) in a fresh interpreter.
The floor: hand-written DuckDB statements over the same Parquet files that compute the same
point figures (each item's disagreement type per run x task x item; per run x task the
type counts, full agreement % and mean pairwise agreement %; per run x task x language x
option the counts): no landing, no checks, no intervals, DuckDB's default memory limit, best
of three in a fresh interpreter. tests/python/test_bench_mcq_languages.py holds the floor
to the pandas reference of the v2 definitions (tests/python/mcq_reference.py).

The machine is shared: before timing, the 1-minute load average (/proc/loadavg) is read,
waiting up to --wait-idle seconds for it to fall below 1; it is recorded with the load after.

`--small` (or `--quick`, as the other benchmarks): 8 languages x 500 items x 3 models,
seconds (results `mcq_languages_quick.*`, not committed); `--floor-only` skips dbt.
Results: bench/results/mcq_languages.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_mcq import DBT, _measure, run_ours  # noqa: E402
from generate_mcq import GeneratedStudy, generate_languages  # noqa: E402

from concord_io.project import copy_project  # noqa: E402

OPTIONS = ("A", "B", "C", "D")
VARIANTS = ("base", "shuffled")
FULL = {"n_languages": 40, "n_items": 10_000, "n_models": 10}
SMALL = {"n_languages": 8, "n_items": 500, "n_models": 3}
TYPES = ("full_agreement", "one_diverged", "majority", "no_majority", "incomplete")
#: Below this 1-minute load average the machine counts as idle (2 cores).
IDLE_LOAD = 1.0


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


#: The items on which a language chose an option, as bits of 64-item chunks: a pair's counts
#: are then popcounts of two masks ANDed, where joining the answers pair by pair would make a
#: row per item and pair (156 M rows at 40 languages, 10 000 items and 20 runs)
OPTION_MASKS = """
    select
        a.model, a.run, a.task, i.item_no // 64 as chunk, a.language, a.chosen,
        bit_or(1::ubigint << (i.item_no % 64)::integer) as items
    from floor_answers as a
    inner join floor_items as i using (model, run, task, item_id)
    where a.chosen is not null
    group by all
"""


def _pair_sums(masks: str, within: str, name: str) -> str:
    """Per run, task and pair of languages: the items set in both masks of ``masks``
    (``items`` by ``language``), over the rows alike in ``within``."""
    return f"""
            select
                l.model, l.run, l.task, l.language as language_1, r.language as language_2,
                sum(bit_count(l.items & r.items)) as {name}
            from {masks} as l
            inner join {masks} as r using (model, run, task, {within})
            where l.language < r.language
            group by all
        """


def floor_statements(
    files: list[Path], languages: list[str], options: tuple[str, ...] = OPTIONS
) -> list[str]:
    """The floor, as statements that leave temp tables ``floor_items`` (run x task x item:
    ``n_languages``, ``n_valid``, ``disagreement_type``), ``floor_summary`` (run x task) and
    ``floor_options`` (run x task x language x option: ``n_option``, ``n_valid``). A run is
    a model and its ``run`` column (one folder: the landing's run); the answers are the
    generator's letters, presented in the order ``options`` (a key's position is its
    index, so ``n_position`` = ``n_option``). ``languages``: the declared ones (empty: each
    task's own)."""
    source = "read_parquet([" + ", ".join(_literal(str(f)) for f in files) + "])"
    listed = ", ".join(map(_literal, languages))
    keys = ", ".join(map(_literal, options))
    n_chose = [f"n_chose_{i}" for i in range(len(options))]
    option_counts = ", ".join(
        f"count(*) filter (where chosen = {_literal(o)}) as {n}"
        for o, n in zip(options, n_chose, strict=True)
    )
    positions = ", ".join(f"({_literal(o)}, {i})" for i, o in enumerate(options, start=1))
    type_counts = ", ".join(
        f"count(*) filter (where disagreement_type = {_literal(t)}) as n_{t}" for t in TYPES
    )
    return [
        f"""
        create or replace temp view floor_answers as
        select
            model,
            run,
            task,
            item_id,
            language,
            case when answer in ({keys}) then answer end as chosen
        from {source}
        {f"where language in ({listed})" if languages else ""}
        """,
        f"""
        create or replace temp table floor_items as
        with run_languages as (
            -- a run's languages: its task's in which it has an answer
            select model, run, task, count(distinct language) as n_languages
            from floor_answers
            group by model, run, task
        ),
        counts as (
            select model, run, task, item_id, count(chosen) as n_valid, {option_counts}
            from floor_answers
            group by all
        ),
        topped as (
            select *, greatest({", ".join(n_chose)}) as n_top
            from counts
            inner join run_languages using (model, run, task)
        )
        select
            model,
            run,
            task,
            item_id,
            n_languages,
            n_valid,
            case
                when n_valid < n_languages then 'incomplete'
                when n_top = n_languages then 'full_agreement'
                when n_languages >= 3 and n_top = n_languages - 1 then 'one_diverged'
                when 2 * n_top > n_languages then 'majority'
                else 'no_majority'
            end as disagreement_type,
            -- a dense number per run and task: the item's bit in the masks below
            row_number() over (partition by model, run, task order by item_id) - 1 as item_no
        from topped
        """,
        f"""
        create or replace temp table floor_summary as
        with masks as ({OPTION_MASKS}),
        answered as (
            select model, run, task, chunk, language, bit_or(items) as items
            from masks
            group by all
        ),
        agreed as ({_pair_sums("masks", "chunk, chosen", "n_agree")}),
        shared as ({_pair_sums("answered", "chunk", "n_both")}),
        pairwise as (
            select
                model,
                run,
                task,
                avg(100.0 * coalesce(n_agree, 0) / n_both) as mean_pairwise_agreement_pct,
                count(*) as n_language_pairs
            from shared
            left join agreed using (model, run, task, language_1, language_2)
            where n_both > 0
            group by all
        ),
        types as (
            select
                model,
                run,
                task,
                any_value(n_languages) as n_languages,
                count(*) as n_items,
                count(*) filter (where disagreement_type <> 'incomplete') as n_complete,
                {type_counts}
            from floor_items
            group by all
        )
        select
            types.*,
            100.0 * n_full_agreement / nullif(n_complete, 0) as full_agreement_pct,
            100.0 * n_no_majority / nullif(n_complete, 0) as no_majority_pct,
            100 - full_agreement_pct as disagreement_pct,
            mean_pairwise_agreement_pct,
            coalesce(n_language_pairs, 0) as n_language_pairs
        from types
        left join pairwise using (model, run, task)
        """,
        f"""
        create or replace temp table floor_options as
        with per_language as (
            select model, run, task, language, chosen, count(*) as n_answers
            from floor_answers
            group by all
        )
        select
            model,
            run,
            task,
            language,
            o.option,
            o.option_position,
            coalesce(sum(n_answers) filter (where chosen = o.option), 0) as n_option,
            coalesce(sum(n_answers) filter (where chosen is not null), 0) as n_valid
        from per_language
        cross join (values {positions}) as o(option, option_position)
        group by all
        """,
    ]


#: The models between the answers' normalised table and mcq_language_pair_consistency (as
#: run_results names them)
PAIR_CHAIN = (
    "int_mcq_language_pairs_counted",
    "int_mcq_option_scores_normalised",
    "int_mcq_language_pairs_compared",
    "mcq_language_pair_consistency",
)
#: The pair consistency's floor: per run, task and pair of languages, on the items both
#: answered validly, the agreement and Cohen's kappa from the pair's K x K table, the table's
#: cells popcounts of two option masks ANDed (:data:`OPTION_MASKS`, as in floor_summary)
PAIRS_FLOOR = f"""
    create or replace temp table floor_pairs as
    with masks as ({OPTION_MASKS}),
    cells as (
        select
            l.model, l.run, l.task, l.language as language_1, r.language as language_2,
            l.chosen as option_1, r.chosen as option_2,
            sum(bit_count(l.items & r.items)) as n
        from masks as l
        inner join masks as r using (model, run, task, chunk)
        where l.language < r.language
        group by all
    ),
    margins as (
        select model, run, task, language_1, language_2, option_1 as option, sum(n) as n_1,
            0 as n_2
        from cells group by all
        union all
        select model, run, task, language_1, language_2, option_2, 0, sum(n)
        from cells group by all
    ),
    chance as (
        select model, run, task, language_1, language_2,
            sum(n_1_option * n_2_option) as n_chance
        from (
            select model, run, task, language_1, language_2, option,
                sum(n_1) as n_1_option, sum(n_2) as n_2_option
            from margins group by all
        )
        group by all
    ),
    tables as (
        select model, run, task, language_1, language_2, sum(n) as n_items,
            sum(n) filter (where option_1 = option_2) as n_agree
        from cells group by all
    )
    select
        tables.*,
        100.0 * n_agree / n_items as agreement_pct,
        (n_agree / n_items - n_chance / (n_items * n_items))
            / nullif(1 - n_chance / (n_items * n_items), 0) as cohen_kappa
    from tables
    inner join chance using (model, run, task, language_1, language_2)
    where n_items > 0
"""


def run_floor(con, files: list[Path], languages: list[str]) -> None:
    """Run the floor's statements on DuckDB connection ``con``."""
    for statement in floor_statements(files, languages):
        con.execute(statement)


def time_pairs_chain(project: Path, memory_limit: str | None, dbt_vars: str) -> dict:
    """:data:`PAIR_CHAIN` run again on the built warehouse, alone: each model's own time
    (within the whole build the models share the two threads with others, and a chain's
    time there is the neighbours' as much as its own)."""
    env = dict(os.environ, CONCORD_DB_PATH=str(project / "warehouse" / "bench.duckdb"))
    if memory_limit:
        env["CONCORD_MEMORY_LIMIT"] = memory_limit
    subprocess.run(
        [str(DBT), "run", "--select", *PAIR_CHAIN, "--profiles-dir", ".", "--project-dir", ".",
         "--vars", dbt_vars],
        cwd=project, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    run = json.loads((project / "target" / "run_results.json").read_text())
    seconds = {n["unique_id"].split(".", 2)[-1]: n["execution_time"] for n in run["results"]}
    return {"model_seconds": seconds, "seconds": sum(seconds.values())}


def time_pairs_floor(study: GeneratedStudy) -> dict:
    """:data:`PAIRS_FLOOR` in a fresh interpreter, best of three, after the floor's tables
    it reads (floor_items) are made."""
    code = (
        "import sys, time, duckdb\n"
        "from pathlib import Path\n"
        f"sys.path.insert(0, {str(HERE)!r})\n"
        "from bench_mcq_languages import PAIRS_FLOOR, run_floor\n"
        f"files = [Path(f) for f in {[str(f) for f in study.files]!r}]\n"
        "connection = duckdb.connect()\n"
        f"run_floor(connection, files, {study.languages!r})\n"
        "times = []\n"
        "for _ in range(3):\n"
        "    start = time.perf_counter()\n"
        "    connection.execute(PAIRS_FLOOR)\n"
        "    times.append(time.perf_counter() - start)\n"
        "(pairs,) = connection.execute('select count(*) from floor_pairs').fetchone()\n"
        "result = {'seconds': min(times), 'first_seconds': times[0], 'pairs': pairs}\n"
    )
    return _measure(code)


def time_floor(study: GeneratedStudy) -> dict:
    """The floor in a fresh interpreter: best of three, with the first run's time (cold
    page cache) beside it."""
    code = (
        "import sys, time, duckdb\n"
        "from pathlib import Path\n"
        f"sys.path.insert(0, {str(HERE)!r})\n"
        "from bench_mcq_languages import run_floor\n"
        f"files = [Path(f) for f in {[str(f) for f in study.files]!r}]\n"
        "connection = duckdb.connect()\n"
        "times = []\n"
        "for _ in range(3):\n"
        "    start = time.perf_counter()\n"
        f"    run_floor(connection, files, {study.languages!r})\n"
        "    times.append(time.perf_counter() - start)\n"
        "(items,) = connection.execute('select count(*) from floor_items').fetchone()\n"
        "result = {'seconds': min(times), 'first_seconds': times[0], 'items': items}\n"
    )
    return _measure(code)


def load_average() -> float:
    with open("/proc/loadavg") as handle:
        return float(handle.read().split()[0])


def idle_check(wait_s: float) -> float:
    """The 1-minute load average, once it is below :data:`IDLE_LOAD` or ``wait_s`` has
    passed (read every 10 s)."""
    deadline = time.monotonic() + wait_s
    load = load_average()
    while load >= IDLE_LOAD and time.monotonic() < deadline:
        print(f"load average {load:.2f}: waiting for the machine to be idle ...", flush=True)
        time.sleep(10)
        load = load_average()
    return load


def bench(size: dict, *, with_dbt: bool, wait_idle: float, memory_limit: str | None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        project = copy_project(Path(tmp) / "project")
        (project / "warehouse").mkdir()
        start = time.perf_counter()
        study = generate_languages(project, **size, variants=VARIANTS)
        generated_s = time.perf_counter() - start
        load_before = idle_check(wait_idle)
        ours: dict | None = None
        if with_dbt:
            try:
                ours = run_ours(project, memory_limit=memory_limit, dbt_vars=study.dbt_vars())
            except RuntimeError as error:  # the build failed: its output's tail is the news
                ours = {"error": str(error)[-2000:]}
        pairs_chain = None
        if ours and "seconds" in ours:
            pairs_chain = time_pairs_chain(project, memory_limit, study.dbt_vars())
        floor = time_floor(study)
        pairs_floor = time_pairs_floor(study)
        load_after = load_average()
    result = {
        **size,
        "n_variants": len(VARIANTS),
        "answer_rows": study.answer_rows,
        "files": len(study.files),
        "generate_seconds": generated_s,
        "ours": ours,
        "floor": floor,
        "load_average_1min": [load_before, load_after],
    }
    if ours and "seconds" in ours:
        result["vs_floor"] = ours["seconds"] / floor["seconds"]
    result["pairs_floor"] = pairs_floor
    if pairs_chain is not None:
        # mcq_language_pair_consistency's own work: its chain of models, the pairs' K x K
        # tables to the mart (issue "Beyond the peers": at most 3x the hand-written query)
        result["pairs_chain"] = pairs_chain
        result["pairs_chain_seconds"] = pairs_chain["seconds"]
        result["pairs_vs_floor"] = pairs_chain["seconds"] / pairs_floor["seconds"]
    return result


def markdown(report: dict) -> str:
    r = report["result"]
    ours = r["ours"]
    if ours is None:
        build = "not run | | "
    elif "error" in ours:
        build = "failed (see the json) | | "
    else:
        build = f"{ours['seconds']:.1f} | {ours['peak_rss_mb']:.0f} | {r['vs_floor']:.1f}x"
    floor = r["floor"]
    before, after = r["load_average_1min"]
    return "\n".join(
        [
            "| languages x items x models x variants | answer rows | dbt build (s) | peak MB | "
            "build / floor | floor (s) | floor, first run (s) | floor peak MB | "
            "load before / after |",
            "|---|---|---|---|---|---|---|---|---|",
            f"| {r['n_languages']} x {r['n_items']:,} x {r['n_models']} x {r['n_variants']} | "
            f"{r['answer_rows']:,} | {build} | {floor['seconds']:.2f} | "
            f"{floor['first_seconds']:.2f} | {floor['peak_rss_mb']:.0f} | "
            f"{before:.2f} / {after:.2f} |",
            "",
            *(
                [
                    "mcq_language_pair_consistency: its models, run alone, "
                    f"{r['pairs_chain_seconds']:.2f} s "
                    f"against the hand-written pair tables' {r['pairs_floor']['seconds']:.2f} s "
                    f"({r['pairs_floor']['pairs']:,} run x language pairs): "
                    f"{r['pairs_vs_floor']:.1f}x",
                    "",
                ]
                if "pairs_vs_floor" in r
                else []
            ),
        ]
    )


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--small", "--quick", action="store_true", help="8 x 500 x 3 x 2: seconds")
    parser.add_argument("--floor-only", action="store_true", help="time the floor, not dbt")
    parser.add_argument(
        "--wait-idle",
        type=float,
        help="seconds to wait for a load average below 1 (default 300; 0 with --small)",
    )
    parser.add_argument("--memory-limit", help="CONCORD_MEMORY_LIMIT for the build")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args(argv)
    wait = args.wait_idle if args.wait_idle is not None else (0 if args.small else 300)
    size = SMALL if args.small else FULL
    print(f"{size} ...", flush=True)
    result = bench(
        size, with_dbt=not args.floor_only, wait_idle=wait, memory_limit=args.memory_limit
    )
    report = {
        "benchmark": "mcq_languages",
        "small": args.small,
        "machine": {
            "python": platform.python_version(),
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
        },
        "result": result,
    }
    name = "mcq_languages_quick" if args.small else "mcq_languages"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / f"{name}.md").write_text(markdown(report))
    print(json.dumps(result), flush=True)
    print(markdown(report))
    return report


if __name__ == "__main__":
    main()
