"""Benchmark: the reader's landing and `dbt build` of the cross-lingual marts on wide CSV
files, against the same-output floor and the study's own pandas code.

Sizes: the shipped 60 items x 8 files (the start cost: the same commands with no work to
speak of), then generated files of 100 000 items x 20 files. Per size, in fresh processes on
the same files: the landing alone, the build as `concord build` runs it after its landing
(CONCORD_LANDED=1: nothing hashed twice), a plain `dbt build` again with nothing new (its
plugin hashes every file), the three floors (each best of three): the landing's (every
file hashed, one typed Parquet copy of the answers), the facts' (the answers and the items
with their types written as tables) and the figures' (one query of the type and option
counts); the study's code (`bench/study_baseline.py`: its bootstrap loop of 1000 iterations
of df.sample per function is timed at 10 and 30 iterations and extrapolated from the slope;
ours draws 10 000 resamples); then one more model's file added, landed and built by that
same plain `dbt build` (incremental: its bound is the build with nothing new plus 3x that
file's share of the same-output floor). DuckDB's memory limit is 700 MB
(CONCORD_MEMORY_LIMIT) on every side. Each build's time is split, from dbt's
run_results.json, into start-up, models and tests.

`--long` measures the long-format path instead: generated Parquet answer files of 10^3
(the start cost), 10^6, 10^7 and 10^8 answer rows (`generate_mcq.generate_long`); per size
the reader's landing alone, then `dbt build` of the cross-lingual marts, then the floor (one
hand-written DuckDB query), DuckDB's memory limit at 2 GB (CONCORD_MEMORY_LIMIT) on every
side; time and peak memory per step, so the curve shows whether time grows linearly. One
more file is added at 10^7 rows; at 10^8 each floor is timed once (ONE_FLOOR_RUN_ROWS).
Results: bench/results/mcq.json and mcq.md (mcq_long.json and mcq_long.md with --long).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from concord_common.sql import sql_literal  # noqa: E402
from concord_io.project import DBT, copy_project  # noqa: E402

BASELINE_ITERATIONS = 1000
LONG_MEMORY_LIMIT = "2GB"  # DuckDB's; the process peak is measured, target <= 3 GB


def _measure(code: str) -> dict:
    """Run python code in a fresh interpreter; it prints a JSON dict; add its peak RSS."""
    wrapper = (
        "import json, resource, sys\n"
        + code
        + "\nresult['peak_rss_mb'] = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,"
        " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024\n"
        "print(json.dumps(result))"
    )
    out = subprocess.run(
        [sys.executable, "-c", wrapper],
        capture_output=True,
        text=True,
        cwd=HERE.parent,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-4000:] + out.stdout[-4000:])
    # the result is the last line that is a JSON object (a long query may print progress)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1])


#: The options of the generated and shipped answers
VALID = "('A', 'B', 'C', 'D')"

#: SQL: an item's disagreement type from its columns ``en``, ``it`` and ``fa`` (incomplete
#: where one is null or not an option), as the floors compute it
DISAGREEMENT_TYPE = f"""case
    when en not in {VALID} or it not in {VALID} or fa not in {VALID}
        or en is null or it is null or fa is null then 'incomplete'
    when en = it and it = fa then 'all_same' when en = it then 'fa_diverged'
    when en = fa then 'it_diverged' when it = fa then 'en_diverged'
    else 'all_different' end"""


def wide_rows(project: Path) -> str:
    """SQL: every registered wide file read once by DuckDB (every column as text), one row per
    item with the model, the run and the three answers (``en``, ``it``, ``fa``), upper-cased
    and trimmed; the files' rows one after the other, in the registry's order."""
    root = project / "seeds" / "mcq"
    with (root / "mcq_answer_registry.csv").open(encoding="utf-8") as handle:
        lines = list(csv.DictReader(handle))
    parts = []
    for line in lines:
        path = sql_literal(root / "answers" / line["file"])
        p = line["prefix"]
        parts.append(
            f"select {sql_literal(line['model'])} as model, {sql_literal(line['run'])} as run, "
            f'upper(trim("{p}_EN")) as en, upper(trim("{p}_IT")) as it, '
            f'upper(trim("{p}_FA")) as fa '
            f"from read_csv({path}, all_varchar = true)"
        )
    return " union all ".join(parts)


def hand_written_query(project: Path) -> str:
    """One DuckDB query over the registered wide files: per model, run and disagreement
    type, the items and how many chose A in each language."""
    return (
        f"with answers as ({wide_rows(project)}), "
        f"typed as (select *, {DISAGREEMENT_TYPE} as type from answers) "
        "select model, run, type, count(*) as n, count(*) filter (where en = 'A') as en_a, "
        "count(*) filter (where it = 'A') as it_a, count(*) filter (where fa = 'A') as fa_a "
        "from typed group by all"
    )


def _best_of(
    query_function: str, project: Path, config: dict, database: str = ":memory:", runs: int = 3
) -> dict:
    """Time the query ``query_function(project)`` of this module in a fresh interpreter with
    DuckDB's ``config``, ``runs`` times (no progress bar on stdout): the best, the first.
    ``database``: where tables the query writes go (a file spills as the build's does)."""
    code = (
        "import sys, time, duckdb\n"
        "from pathlib import Path\n"
        f"sys.path.insert(0, {str(HERE)!r})\n"
        f"from bench_mcq import {query_function}\n"
        f"query = {query_function}(Path({str(project)!r}))\n"
        f"connection = duckdb.connect({database!r}, config={config!r})\n"
        "connection.execute('set enable_progress_bar = false')\n"
        "times = []\n"
        f"for _ in range({runs}):\n"
        "    start = time.perf_counter()\n"
        "    rows = connection.execute(query).fetchall()\n"
        "    times.append(time.perf_counter() - start)\n"
        "result = {'seconds': min(times), 'first_seconds': times[0], 'groups': len(rows)}\n"
    )
    return _measure(code)


def run_ours(
    project: Path,
    memory_limit: str | None = None,
    dbt_vars: str | None = None,
    landed: bool = False,
) -> dict:
    """Time `dbt build` of the cross-lingual marts and their tests. The project is parsed
    once before (dbt keeps the parse between builds, as on a user's machine). ``dbt_vars``:
    the ``--vars`` of both calls (the study's languages, for one). ``landed``: the build
    follows the reader's landing, timed apart, and runs as `concord build` runs it then
    (CONCORD_LANDED=1: the plugin does not hash again the files just landed); otherwise
    the plugin lands first, as a plain `dbt build` does, and its time is the build's."""
    database = project / "warehouse" / "bench.duckdb"
    limit = {"CONCORD_MEMORY_LIMIT": memory_limit} if memory_limit else {}
    if landed:
        limit["CONCORD_LANDED"] = "1"
    dbt_args = ["--profiles-dir", ".", "--project-dir", "."]
    if dbt_vars:
        dbt_args += ["--vars", dbt_vars]
    code = f"""
import os, subprocess, time
env = dict(os.environ, CONCORD_DB_PATH={str(database)!r}, **{limit!r})
subprocess.run([{str(DBT)!r}, 'parse', *{dbt_args!r}], cwd={str(project)!r}, env=env,
               capture_output=True, check=True)
start = time.perf_counter()
p = subprocess.run([{str(DBT)!r}, 'build', '--select', '+path:models/marts/mcq',
                    *{dbt_args!r}],
                   cwd={str(project)!r}, env=env, capture_output=True, text=True)
elapsed = time.perf_counter() - start
if p.returncode != 0:
    raise SystemExit(p.stdout[-4000:])
result = {{'seconds': elapsed}}
run = json.loads((Path({str(project)!r}) / 'target' / 'run_results.json').read_text())
result['dbt_elapsed_seconds'] = run['elapsed_time']
result['node_seconds'] = node_seconds = {{}}
for node in run['results']:
    kind = node['unique_id'].split('.')[0]
    node_seconds[kind] = node_seconds.get(kind, 0.0) + node['execution_time']
result['nodes'] = len(run['results'])
# where the time goes: the slowest nodes
slowest = sorted(run['results'], key=lambda n: -n['execution_time'])[:12]
result['slowest_nodes'] = [[n['unique_id'].split('.', 2)[-1], round(n['execution_time'], 2)]
                           for n in slowest]
# every model's own time: a mart's chain against its own floor
result['model_seconds'] = {{n['unique_id'].split('.', 2)[-1]: round(n['execution_time'], 3)
                           for n in run['results'] if n['unique_id'].startswith('model.')}}
"""
    return _measure("import json\nfrom pathlib import Path\n" + code)


def run_dbt_version() -> dict:
    """`dbt --version`, best of three: what starting dbt costs before it reads the project
    (importing dbt-core and the adapters), a floor under every build and rebuild."""
    code = f"""
import subprocess, time
times = []
for _ in range(3):
    start = time.perf_counter()
    subprocess.run([{str(DBT)!r}, '--version'], capture_output=True, check=True)
    times.append(time.perf_counter() - start)
result = {{'seconds': min(times)}}
"""
    return _measure(code)


def run_baseline(project: Path, iterations: int) -> dict:
    """Times the baseline; the bootstrap loop at `iterations` and 3x that, so the 1000-
    iteration time is extrapolated from the slope (file reads are not multiplied)."""
    code = f"""
import time, pandas as pd
import study_baseline as sb
from pathlib import Path
root = Path({str(project)!r}) / 'seeds' / 'mcq'
registry = pd.read_csv(root / 'mcq_answer_registry.csv')
files = [(str(root / 'answers' / f), p) for f, p in zip(registry.file, registry.prefix)]
start = time.perf_counter()
sb.analyse(files, with_bootstrap=False)
fixed = time.perf_counter() - start
def boot(k):
    start = time.perf_counter()
    for path, p in files:
        sb.bootstrap_agreement_confidence_interval(path, p, k)
        sb.bootstrap_disagreement_confidence_interval(path, p, k)
    return time.perf_counter() - start
k1, k2 = {iterations}, min(3 * {iterations}, {BASELINE_ITERATIONS})
t1 = boot(k1)
t2 = boot(k2) if k2 > k1 else t1
per_iteration = (t2 - t1) / (k2 - k1) if k2 > k1 else 0.0
boot_full = t1 + per_iteration * ({BASELINE_ITERATIONS} - k1)
result = {{'fixed_seconds': fixed, 'bootstrap_seconds': boot_full,
          'bootstrap_iterations_timed': [k1, k2],
          'extrapolated': k1 != {BASELINE_ITERATIONS},
          'seconds': fixed + boot_full}}
"""
    code = f"import sys; sys.path.insert(0, {str(HERE)!r})\n" + code
    return _measure(code)


def append_one_file(project: Path) -> None:
    """One more model's answer file (a copy of the first, as a new model) and its line."""
    root = project / "seeds" / "mcq"
    with (root / "mcq_answer_registry.csv").open(encoding="utf-8") as handle:
        first = next(csv.DictReader(handle))
    source = root / "answers" / first["file"]
    (root / "answers" / "Appended_Merged_Multilingual.csv").write_bytes(source.read_bytes())
    with (root / "mcq_answer_registry.csv").open("a", encoding="utf-8") as handle:
        handle.write(
            f"Appended_Merged_Multilingual.csv,Appended model,{first['prefix']},base,"
            f"{first['presented_option_order']}\n"
        )


def hand_written_long_query(project: Path) -> str:
    """The floor of the long-format path: one DuckDB query over the generated Parquet files
    computing what the selection computes before its bootstraps. Per model, run and item
    the three answers, their validity and the disagreement type; per model and run the type
    counts (full agreement is the all_same share); per model, run, language and option the
    counts. Both results in one statement (a union of the two groupings)."""
    files = str(project / "seeds" / "mcq" / "answer_sources" / "answers_*.parquet")
    return f"""
        with answers as (
            select model, run, item_id, language, upper(trim(answer)) as answer
            from read_parquet('{files.replace("'", "''")}')
        ),
        items as (
            select model, run, item_id,
                any_value(answer) filter (where language = 'en') as en,
                any_value(answer) filter (where language = 'it') as it,
                any_value(answer) filter (where language = 'fa') as fa
            from answers group by all
        ),
        typed as (
            select model, run, {DISAGREEMENT_TYPE} as type
            from items
        )
        select 'type' as grouping, model, run, type as what, count(*) as n
        from typed group by all
        union all
        select 'option', model, run, language || ':' || answer, count(*)
        from answers where answer in {VALID} group by all
    """


def hand_written_long_facts(project: Path) -> str:
    """The floor of the selection's output: what any design that publishes its two fact
    tables must at least do, writing one row per answer (its validity beside it) and one per
    item (the three answers and the disagreement type) as tables, from the same files. The
    figures' floor (:func:`hand_written_long_query`) does not write them."""
    files = str(project / "seeds" / "mcq" / "answer_sources" / "answers_*.parquet")
    return f"""
        create or replace table answers_fact as
        select model, run, item_id, language, upper(trim(answer)) as answer,
            upper(trim(answer)) in {VALID} as is_valid
        from read_parquet('{files.replace("'", "''")}');
        create or replace table items_fact as
        with items as (
            select model, run, item_id,
                any_value(answer) filter (where language = 'en' and is_valid) as en,
                any_value(answer) filter (where language = 'it' and is_valid) as it,
                any_value(answer) filter (where language = 'fa' and is_valid) as fa
            from answers_fact group by all
        )
        select *, {DISAGREEMENT_TYPE} as type
        from items;
        select count(*) from items_fact
    """


def hand_written_long_published_facts(project: Path) -> str:
    """The facts' floor as the issue defines it: ``fct_mcq_item_agreement_v2`` and
    ``fct_mcq_answers`` written with their published columns, for any number of languages
    (an item's languages are the run's, counted; nothing is spelled per language), from the
    same files, then each one's key-uniqueness query. The item table first (one aggregation
    of the answers: the valid languages, the count on each option and the valid answers as
    text for the departing languages), then the answers with ``departs`` from their item.
    The domain is left null (the real one joins the item files): a floor a little below
    what the product must do."""
    files = sql_literal(str(project / "seeds" / "mcq" / "answer_sources" / "answers_*.parquet"))
    options = ["A", "B", "C", "D"]
    counts = ", ".join(f"count(*) filter (where chosen_option = '{o}') as n_{o}" for o in options)
    leading = " ".join(f"when 2 * n_{o} > n_languages then '{o}'" for o in options)
    n_leading = " ".join(f"when 2 * n_{o} > n_languages then n_{o}" for o in options)
    chosen = f"case when upper(trim(answer)) in {VALID} then upper(trim(answer)) end"
    return f"""
        create or replace temp table runs as
        select model, run, model || '--' || run as run_id, count(distinct language) as n_languages
        from read_parquet({files}) group by all;
        create or replace table items_fact as
        with answered as (
            select r.run_id, any_value(r.model) as model, any_value(r.run) as variant,
                a.item_id::varchar as item_id, any_value(r.n_languages) as n_languages,
                count({chosen}) as n_valid, {counts.replace("chosen_option", chosen)},
                string_agg(case when {chosen} is not null
                    then language || chr(31) || {chosen} end, chr(30)) as valid_answers
            from read_parquet({files}) as a join runs as r using (model, run)
            group by r.run_id, a.item_id
        ),
        led as (
            select *, case {leading} end as leading_option, case {n_leading} end as n_leading
            from answered
        ),
        typed as (
            select *, case
                when n_valid < n_languages then 'incomplete'
                when n_leading = n_languages then 'full_agreement'
                when n_leading = n_languages - 1 and n_languages >= 3 then 'one_diverged'
                when n_leading is not null then 'majority'
                else 'no_majority' end as disagreement_type
            from led
        )
        select run_id, model, null::varchar as model_revision, variant, 'xcloze' as task,
            item_id, null::varchar as domain, n_languages::integer as n_languages,
            n_valid::integer as n_valid,
            case when n_valid = n_languages then leading_option end as majority_option,
            (case when n_valid = n_languages then n_leading end)::integer as n_majority,
            case when disagreement_type <> 'incomplete'
                then disagreement_type = 'full_agreement' end as full_agreement,
            disagreement_type,
            case when n_valid = n_languages and n_leading < n_languages then array_to_string(
                list_transform(list_sort(list_filter(string_split(valid_answers, chr(30)),
                    lambda x: not ends_with(x, chr(31) || leading_option))),
                    lambda x: split_part(x, chr(31), 1)), ',') end as departing_languages
        from typed;
        create or replace table answers_fact as
        select r.run_id, r.model, null::varchar as model_revision, r.run as variant,
            'xcloze' as task, a.item_id::varchar as item_id, a.language,
            null::varchar as domain, {chosen} as chosen_option,
            position({chosen} in 'ABCD')::integer as presented_position,
            a.answer as answer_raw, {chosen} is not null as is_valid,
            case when {chosen} is null then 'unrecognised' end as invalid_reason,
            case when i.disagreement_type <> 'incomplete' then coalesce(
                i.majority_option is not null and {chosen} <> i.majority_option, false)
                end as departs,
            parse_filename(a.filename) as source_file, a.file_row_number + 1 as source_row
        from read_parquet({files}, filename = true, file_row_number = true) as a
        join runs as r using (model, run)
        join items_fact as i on i.run_id = r.run_id and i.item_id = a.item_id::varchar;
        select
            (select count(*) from (select run_id, task, item_id, language from answers_fact
                group by all having count(*) > 1)),
            (select count(*) from (select run_id, task, item_id from items_fact
                group by all having count(*) > 1))
    """


def hand_written_long_landing(project: Path) -> str:
    """The floor of the landing: one typed Parquet copy of the answers, their validity beside
    them, from the same files (what the reader must at least write)."""
    files = str(project / "seeds" / "mcq" / "answer_sources" / "answers_*.parquet")
    target = str(project / "warehouse" / "landing_floor.parquet")
    return f"""
        copy (
            select model, run, item_id, language, upper(trim(answer)) as answer,
                upper(trim(answer)) in {VALID} as is_valid
            from read_parquet('{files.replace("'", "''")}')
        ) to '{target.replace("'", "''")}' (format parquet)
    """


#: Each floor is the best of three runs, but at this size and above of one: at 10^8 rows the
#: published facts' floor alone takes five minutes, spilling (bench/README.md)
ONE_FLOOR_RUN_ROWS = 100_000_000
#: DuckDB's limit on every side of the long curve
LONG_CONFIG = {"memory_limit": LONG_MEMORY_LIMIT}


def run_long_landing_floor(project: Path, runs: int = 3) -> dict:
    """Time :func:`hand_written_long_landing`, best of ``runs``, under the same memory limit."""
    return _best_of("hand_written_long_landing", project, LONG_CONFIG, runs=runs)


def run_long_facts(
    project: Path, query_function: str = "hand_written_long_facts", runs: int = 3
) -> dict:
    """Time ``query_function`` (:func:`hand_written_long_facts` or
    :func:`hand_written_long_published_facts`), best of ``runs``, into a database file beside
    the build's, under the same memory limit."""
    database = str(project / "warehouse" / "facts_floor.duckdb")
    return _best_of(query_function, project, LONG_CONFIG, database, runs)


def run_long_landing_shape_floor(project: Path, runs: int = 3) -> dict:
    """Time :func:`hand_written_long_landing_shape`, best of ``runs``, under the same limit."""
    return _best_of("hand_written_long_landing_shape", project, LONG_CONFIG, runs=runs)


def run_long_query(project: Path, runs: int = 3) -> dict:
    """Time :func:`hand_written_long_query` in a fresh interpreter, best of ``runs``, under
    the same memory limit as the build."""
    return _best_of("hand_written_long_query", project, LONG_CONFIG, runs=runs)


def run_landing(project: Path) -> dict:
    """Time the reader alone (``land``: the seed files and the study's inputs, what
    `concord build`'s land stage and the dbt plugin run before the build) on the project's
    files, into the landing folder the build reads; its peak memory."""
    code = (
        "import time\n"
        "from pathlib import Path\n"
        "from concord_io.landing import land\n"
        f"project = Path({str(project)!r})\n"
        "start = time.perf_counter()\n"
        "report = land(project, project / 'warehouse' / 'landing')\n"
        "result = {'seconds': time.perf_counter() - start, 'folders': len(report.outcomes)}\n"
    )
    return _measure(code)


def add_long_file(project: Path) -> int:
    """One more answer file, the first generated file's runs as two new models (``Model 20``
    and up): what a user adds to a landed warehouse. Returns its rows."""
    import duckdb

    sources = project / "seeds" / "mcq" / "answer_sources"
    first, added = sources / "answers_000.parquet", sources / "answers_added.parquet"
    with duckdb.connect() as con:
        con.execute(
            f"copy (select 'Model ' || (20 + right(model, 2)::int)::varchar as model, "
            f"* exclude (model) from read_parquet({sql_literal(first)})) "
            f"to {sql_literal(added)} (format parquet)"
        )
        return con.execute(f"select count(*) from read_parquet({sql_literal(added)})").fetchone()[0]


def bench_long(n_rows: int, rebuild: bool = False, incremental: bool = False) -> dict:
    """One size of the long-format curve: the reader's landing, then `dbt build` of the
    selection as `concord build` runs it after its landing, with
    ``rebuild`` a plain `dbt build` again with nothing new (its plugin hashes every input
    file and finds them unchanged), then the floors, on the same files; with
    ``incremental``, also the build with nothing new, then one more file
    (:func:`add_long_file`) landed and built on that warehouse by the same command (a plain
    `dbt build`, whose plugin lands what is new): the two differ by the file alone."""
    from generate_mcq import generate_long

    with tempfile.TemporaryDirectory() as tmp:
        project = copy_project(Path(tmp) / "project")
        (project / "warehouse").mkdir()
        generate_long(project, n_rows)
        landing = run_landing(project)
        ours = run_ours(project, memory_limit=LONG_MEMORY_LIMIT, landed=True)
        rebuild = rebuild or incremental
        again = run_ours(project, memory_limit=LONG_MEMORY_LIMIT) if rebuild else None
        if not incremental:
            # the floors read the generated files alone: without a build to come, the
            # warehouse and the landing go first, so that the floors' spill files (at 10^8
            # rows, several GB) have the disk
            shutil.rmtree(project / "warehouse" / "landing")
            for database in (project / "warehouse").glob("bench.duckdb*"):
                database.unlink()
        runs = 1 if n_rows >= ONE_FLOOR_RUN_ROWS else 3
        floor = run_long_query(project, runs)
        # the floors: the facts with their published columns and key queries, the
        # landing's copy with docs/landing.md's provenance columns; beside them, the
        # narrower floors of the earlier runs (six columns each), for the history
        facts = run_long_facts(project, "hand_written_long_published_facts", runs)
        narrow_facts = run_long_facts(project, runs=runs)
        hashing = run_hash_floor(sorted((project / "seeds" / "mcq").rglob("*.parquet")))
        landing_floor = _with_hashing(run_long_landing_shape_floor(project, runs), hashing)
        narrow_landing_floor = _with_hashing(run_long_landing_floor(project, runs), hashing)
        added_rows = added = None
        if incremental:
            added_rows = add_long_file(project)
            # the same command as the build with nothing new: its plugin lands the file
            added = run_ours(project, memory_limit=LONG_MEMORY_LIMIT)
    total = landing["seconds"] + ours["seconds"]
    same = landing_floor["seconds"] + facts["seconds"] + floor["seconds"]
    return {
        "label": f"{n_rows:,} rows",
        "answer_rows": n_rows,
        "landing": landing,
        "ours": ours,
        "floor": floor,
        "facts_floor": facts,
        "landing_floor": landing_floor,
        # what any design must land, write and compute: the floor for the work
        "same_output_floor_seconds": same,
        "narrow_facts_floor": narrow_facts,
        "narrow_landing_floor": narrow_landing_floor,
        "narrow_same_output_floor_seconds": (
            narrow_landing_floor["seconds"] + narrow_facts["seconds"] + floor["seconds"]
        ),
        "rebuild_unchanged": again,
        "incremental_after_one_file": added,
        "added_rows": added_rows,
        "incremental_seconds": added["seconds"] if added else None,
        # the bound: the build with nothing new plus 3x the file's same-output floor
        # (the floors grow with the rows: its share of them)
        "incremental_bound_seconds": (
            again["seconds"] + 3 * same * added_rows / n_rows if added and again else None
        ),
        "total_seconds": total,
        "ours_us_per_row": 1e6 * total / n_rows,
    }


#: The long curve's sizes; the first is the start cost (the same command on 10^3 rows). At
#: 10^8 rows the landing, the warehouse and DuckDB's spill files take about 5 GB of disk.
LONG_SIZES = [1_000, 1_000_000, 10_000_000, 100_000_000]
#: Where one more file is added to a landed, built warehouse (the issue's incremental goal)
INCREMENTAL_ROWS = 10_000_000


def main_long(quick: bool, out: Path) -> None:
    sizes = [1_000, 10_000, 100_000] if quick else LONG_SIZES
    incremental_rows = sizes[-1] if quick else INCREMENTAL_ROWS
    dbt_start = run_dbt_version()["seconds"]
    results = []
    for n_rows in sizes:
        print(f"long format, {n_rows:,} answer rows ...", flush=True)
        results.append(
            bench_long(n_rows, rebuild=n_rows == sizes[0], incremental=n_rows == incremental_rows)
        )
        print(json.dumps(results[-1]), flush=True)
    write_long_report(results, quick, out, dbt_start)


def _write_results(out: Path, name: str, report: dict, lines: list[str]) -> None:
    """``<out>/<name>.json`` (``report``) and ``<out>/<name>.md`` (``lines``), printed too."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(report, indent=2))
    (out / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def write_long_report(
    results: list[dict], quick: bool, out: Path, dbt_version_seconds: float
) -> None:
    """mcq_long.json and mcq_long.md from the sizes' results, the first the start cost,
    beside `dbt --version` (best of three)."""
    name = "mcq_long_quick" if quick else "mcq_long"
    start = results[0]["total_seconds"]
    unchanged = results[0]["rebuild_unchanged"]["seconds"]
    report = {
        "benchmark": "mcq_long",
        "quick": quick,
        "memory_limit": LONG_MEMORY_LIMIT,
        "dbt_version_seconds": dbt_version_seconds,
        "start_cost_seconds": start,
        "rebuild_unchanged_seconds": unchanged,
        "results": results,
    }
    lines = [
        f"Start cost: the same landing and build on {results[0]['answer_rows']:,} rows, "
        f"{start:.1f} s ({start / dbt_version_seconds:.1f}× `dbt --version`, "
        f"{dbt_version_seconds:.2f} s best of three); the build again with nothing new "
        f"{unchanged:.1f} s ({unchanged / dbt_version_seconds:.1f}×). The floor: one "
        f"hand-written DuckDB query (best of three) over the same files, computing the "
        f"types, agreement counts and option counts. The facts' "
        f"floor: `fct_mcq_item_agreement_v2` and `fct_mcq_answers` written with their "
        f"published columns from the same files, and each one's key-uniqueness query, best "
        f"of three. The landing's floor: every input file read once to hash it and one "
        f"typed Parquet copy of the answers with `docs/landing.md`'s provenance columns, "
        f"each best of three. The same-output floor: the three added, what any design must "
        f"land, write and compute. The narrow floor: the same with the six-column copies of "
        f"the runs before 2026-11-27 night (facts and landing), for the history. From "
        f"{ONE_FLOOR_RUN_ROWS:,} rows each floor is timed once, not best of three. DuckDB's "
        f"memory limit {LONG_MEMORY_LIMIT} on every side.",
        "",
        "| answer rows | landing (s) | landing peak MB | dbt build (s) | build peak MB | "
        "total (s) | µs per row | floor (s) | facts' floor (s) | landing's floor (s) | "
        "same-output floor (s) | (total − start) / floor | (total − start) / facts' floor | "
        "(total − start) / same-output floor | narrow floor (s) | (total − start) / narrow |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        floor, facts = r["floor"]["seconds"], r["facts_floor"]["seconds"]
        same = r["same_output_floor_seconds"]
        floors = f"{floor:.2f} | {facts:.2f} | {r['landing_floor']['seconds']:.2f} | {same:.2f}"
        landed = f"| {r['answer_rows']:,} | {r['landing']['seconds']:.1f} | "
        landed += f"{r['landing']['peak_rss_mb']:.0f} | "
        narrow = r.get("narrow_same_output_floor_seconds")
        work = r["total_seconds"] - start
        lines.append(
            landed + f"{r['ours']['seconds']:.1f} | "
            f"{r['ours']['peak_rss_mb']:.0f} | {r['total_seconds']:.1f} | "
            f"{r['ours_us_per_row']:.3f} | {floors} | "
            f"{work / floor:.1f}× | {work / facts:.1f}× | {work / same:.1f}× | "
            + (f"{narrow:.2f} | {work / narrow:.1f}× |" if narrow else "— | — |")
        )
    for r in results:
        if r.get("incremental_seconds") is not None:
            lines += [
                "",
                f"Incremental at {r['answer_rows']:,} rows: one more file of "
                f"{r['added_rows']:,} rows landed and built on that warehouse by the same "
                f"`dbt build` (its plugin lands the file) in {r['incremental_seconds']:.1f} s; "
                f"the build with nothing new {r['rebuild_unchanged']['seconds']:.1f} s; the "
                f"bound (nothing new + 3× the file's share of the same-output floor) "
                f"{r['incremental_bound_seconds']:.1f} s.",
            ]
    lines += _time_breakdown(results, dbt_version_seconds)
    _write_results(out, name, report, lines)


def hand_written_long_landing_shape(project: Path) -> str:
    """The landing's floor with the landed answers' shape (``docs/landing.md``): one typed
    Parquet copy of the answers with every column the reader lands (the run, the task, the
    provenance: source file, row and content hash), their validity beside them. What any
    reader of this contract must at least write; the landing's floor writes six columns."""
    files = str(project / "seeds" / "mcq" / "answer_sources" / "answers_*.parquet")
    target = str(project / "warehouse" / "landing_shape_floor.parquet")
    return f"""
        copy (
            select model || '--' || run as run_id, 'xcloze' as task, item_id::varchar as item_id,
                language, case when upper(trim(answer)) in {VALID} then upper(trim(answer))
                end as chosen_option, answer as raw_answer,
                case when upper(trim(answer)) not in {VALID} then 'unrecognised' end
                    as invalid_reason,
                null::varchar as gold_option, null::varchar as domain_label,
                null::varchar as domain, 'answer' as source_column,
                parse_filename(filename) as source_file, file_row_number + 1 as source_row,
                md5(filename) as content_hash
            from read_parquet('{files.replace("'", "''")}', filename = true,
                file_row_number = true)
        ) to '{target.replace("'", "''")}' (format parquet)
    """


def hand_written_wide_landing(project: Path) -> str:
    """The landing's floor for the wide files: each registered file read once by DuckDB
    (:func:`wide_rows`), its answer columns unpivoted to one row per item and language, and
    one typed Parquet copy of those answers, their validity beside them."""
    target = sql_literal(project / "warehouse" / "wide_landing_floor.parquet")
    return (
        f"copy (select model, run, language, answer, answer in {VALID} as is_valid "
        f"from (unpivot ({wide_rows(project)}) on en, it, fa into name language value answer)) "
        f"to {target} (format parquet)"
    )


def run_hash_floor(files: list[Path]) -> dict:
    """The other half of the landing's floor: every input file read once to hash it
    (SHA-256 in chunks, as the reader does), in a fresh interpreter, best of three."""
    code = (
        "import hashlib, time\n"
        f"files = {[str(f) for f in files]!r}\n"
        "times = []\n"
        "for _ in range(3):\n"
        "    start = time.perf_counter()\n"
        "    for name in files:\n"
        "        digest = hashlib.sha256()\n"
        "        with open(name, 'rb') as handle:\n"
        "            while chunk := handle.read(4 << 20):\n"
        "                digest.update(chunk)\n"
        "    times.append(time.perf_counter() - start)\n"
        "result = {'seconds': min(times), 'files': len(files)}\n"
    )
    return _measure(code)


def _with_hashing(copy: dict, hashing: dict) -> dict:
    """The landing's floor: its copy and its hashing, each best of three, added."""
    return {**copy, "copy_seconds": copy["seconds"], "hash_seconds": hashing["seconds"],
            "seconds": copy["seconds"] + hashing["seconds"]}  # fmt: skip


def run_landing_again(project: Path) -> dict:
    """The landing once more with every input unchanged (what every `dbt build` runs first)."""
    return run_landing(project)


def bench_landing(n_rows: int) -> dict:
    """The reader alone at one size of long Parquet files (10 files, 40 runs): a first
    landing, the landing again with nothing new, the landing's floor and its floor in the
    landed shape, each floor best of three, under the same memory limit."""
    from generate_mcq import generate_long

    with tempfile.TemporaryDirectory() as tmp:
        project = copy_project(Path(tmp) / "project")
        (project / "warehouse").mkdir()
        generate_long(project, n_rows)
        landing = run_landing(project)
        again = run_landing_again(project)
        hashing = run_hash_floor(sorted((project / "seeds" / "mcq").rglob("*.parquet")))
        floor = _with_hashing(run_long_landing_floor(project), hashing)
        shape = _with_hashing(
            _best_of(
                "hand_written_long_landing_shape", project, {"memory_limit": LONG_MEMORY_LIMIT}
            ),
            hashing,
        )
    return {
        "answer_rows": n_rows,
        "landing": landing,
        "landing_unchanged": again,
        "landing_floor": floor,
        "landing_shape_floor": shape,
    }


def bench_wide_landing(n_items: int, n_files: int) -> dict:
    """The reader alone on generated wide files (``n_items`` x ``n_files``), as
    :func:`bench_landing`, against :func:`hand_written_wide_landing`."""
    from generate_mcq import generate

    with tempfile.TemporaryDirectory() as tmp:
        project = copy_project(Path(tmp) / "project")
        (project / "warehouse").mkdir()
        generate(project, n_items, n_files)
        landing = run_landing(project)
        again = run_landing_again(project)
        floor = _with_hashing(
            _best_of("hand_written_wide_landing", project, {"memory_limit": LONG_MEMORY_LIMIT}),
            run_hash_floor(sorted((project / "seeds" / "mcq" / "answers").glob("*.csv"))),
        )
    return {
        "answer_rows": 3 * n_items * n_files,
        "wide": f"{n_items:,} x {n_files}",
        "landing": landing,
        "landing_unchanged": again,
        "landing_floor": floor,
    }


def main_landing(quick: bool, out: Path, sizes: list[int]) -> None:
    """bench/results/landing.{json,md}: the reader against the landing's floors."""
    sizes = [1_000] if quick else sizes
    os.environ["CONCORD_MEMORY_LIMIT"] = LONG_MEMORY_LIMIT  # the reader's, as the floors'
    results = []
    for n_rows in sizes:
        print(f"landing, {n_rows:,} long answer rows ...", flush=True)
        results.append(bench_landing(n_rows))
        print(json.dumps(results[-1]), flush=True)
    n_items, n_files = (300, 4) if quick else (100_000, 20)
    print(f"landing, {n_items:,} items x {n_files} wide files ...", flush=True)
    results.append(bench_wide_landing(n_items, n_files))
    print(json.dumps(results[-1]), flush=True)
    report = {"benchmark": "landing", "quick": quick, "memory_limit": LONG_MEMORY_LIMIT,
              "threads": os.environ.get("CONCORD_THREADS", "2"), "results": results}  # fmt: skip
    lines = [
        f"The reader (`land`, a fresh process) on long Parquet files (10 files, 40 runs) "
        f"and on wide CSV files, against the landing's floor: every input file read once to "
        f"hash it, plus one typed Parquet copy of the answers (six columns; for the wide files "
        f"each file read once by DuckDB and unpivoted) and, for the long files, the same floor "
        f"with the copy in the landed answers' shape (every landed column); each part best of "
        f"three; DuckDB's memory limit {LONG_MEMORY_LIMIT} on every side.",
        "",
        "| answer rows | landing (s) | peak MB | unchanged (s) | floor (s) | shape floor (s) "
        "| landing / floor | landing / shape floor |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        landing, floor = r["landing"]["seconds"], r["landing_floor"]["seconds"]
        shape = r.get("landing_shape_floor", {}).get("seconds")
        rows = f"{r['answer_rows']:,}" + (f" (wide, {r['wide']})" if "wide" in r else "")
        lines.append(
            f"| {rows} | {landing:.1f} | {r['landing']['peak_rss_mb']:.0f} | "
            f"{r['landing_unchanged']['seconds']:.1f} | {floor:.2f} | "
            + (f"{shape:.2f}" if shape else "—")
            + f" | {landing / floor:.1f}× | "
            + (f"{landing / shape:.1f}× |" if shape else "— |")
        )
    lines += _landing_per_row(results)
    _write_results(out, "landing_quick" if quick else "landing", report, lines)


def _landing_per_row(results: list[dict]) -> list[str]:
    """The long landings split into a cost per row and a fixed cost (the line through the
    smallest and the largest size, as for the shape floor): where a landing spends per row
    more than twice what the floor does, no cut of its fixed costs meets 2× the floor."""
    long = [r for r in results if "wide" not in r and "landing_shape_floor" in r]
    if len(long) < 2:
        return []
    small, large = long[0], long[-1]
    rows = large["answer_rows"] - small["answer_rows"]

    def line(key: str) -> tuple[float, float]:
        per_row = (large[key]["seconds"] - small[key]["seconds"]) / rows
        return per_row, small[key]["seconds"] - per_row * small["answer_rows"]

    (ours, fixed), (floor, floor_fixed) = line("landing"), line("landing_shape_floor")
    return [
        "",
        f"Between {small['answer_rows']:,} and {large['answer_rows']:,} rows the landing "
        f"spends {ours * 1e6:.2f} µs a row and {fixed:.2f} s fixed (40 runs: "
        f"{fixed / 40:.3f} s a run), the shape floor {floor * 1e6:.2f} µs a row and "
        f"{floor_fixed:.2f} s: per row {ours / floor:.1f}× the floor.",
    ]


def hand_written_wide_facts(project: Path) -> str:
    """The facts' floor for the wide files: each registered file read once by DuckDB (every
    column as text) into a table, then the two fact tables the selection publishes written from
    it: one row per answer (its validity beside it) and one per item (its three answers and
    the disagreement type). A wide row already holds an item's three answers, so the item
    table needs no grouping; a row's place in the table read (``read_csv`` gives no row
    numbers) stands for the item's number."""
    return f"""
        create or replace temp table wide as {wide_rows(project)};
        create or replace table answers_fact as
        select model, run, item_row, language, answer, answer in {VALID} as is_valid
        from (unpivot (select rowid as item_row, * from wide) on en, it, fa
            into name language value answer);
        create or replace table items_fact as
        select model, run, rowid as item_row,
            case when en in {VALID} then en end as en,
            case when it in {VALID} then it end as it,
            case when fa in {VALID} then fa end as fa,
            {DISAGREEMENT_TYPE} as type
        from wide;
        select count(*) from items_fact
    """


#: DuckDB's memory limit for the wide files (the issue's: 700 MB; the process peak goal 1 GB)
WIDE_MEMORY_LIMIT = "700MB"


def wide_floors(project: Path) -> dict:
    """The three floors over the project's wide files, each best of three under the wide
    memory limit: the landing's (every file hashed, plus one typed Parquet copy of the
    answers), the facts' (:func:`hand_written_wide_facts`, into a database file) and the
    figures' (:func:`hand_written_query`); added, the same-output floor."""
    config = {"memory_limit": WIDE_MEMORY_LIMIT}
    hashing = run_hash_floor(sorted((project / "seeds" / "mcq").rglob("*.csv")))
    landing = _with_hashing(_best_of("hand_written_wide_landing", project, config), hashing)
    database = str(project / "warehouse" / "facts_floor.duckdb")
    facts = _best_of("hand_written_wide_facts", project, config, database)
    figures = _best_of("hand_written_query", project, config)
    return {
        "landing_floor": landing,
        "facts_floor": facts,
        "floor": figures,
        "same_output_floor_seconds": landing["seconds"] + facts["seconds"] + figures["seconds"],
    }


def bench_wide(n_items: int | None, n_files: int, iterations: int | None) -> dict:
    """One size of the wide files (``None`` items: the shipped 60 x 8, the start cost): the
    reader's landing, `dbt build` of the selection, the same build with nothing new, the
    three floors, the study's pandas code (not with ``iterations=None``), then one more
    model's file added, landed and built by the same `dbt build` as the one with nothing
    new (incremental)."""
    from generate_mcq import generate

    with tempfile.TemporaryDirectory() as tmp:
        project = copy_project(Path(tmp) / "project")
        (project / "warehouse").mkdir()
        if n_items is not None:
            generate(project, n_items, n_files, seed=0)
        landing = run_landing(project)
        ours = run_ours(project, memory_limit=WIDE_MEMORY_LIMIT, landed=True)
        unchanged = run_ours(project, memory_limit=WIDE_MEMORY_LIMIT)
        floors = wide_floors(project)
        baseline = run_baseline(project, iterations) if iterations else None
        append_one_file(project)
        # the same command as the build with nothing new: its plugin lands the file
        added = run_ours(project, memory_limit=WIDE_MEMORY_LIMIT)
    items = 60 if n_items is None else n_items
    rows = items * n_files * 3
    total = landing["seconds"] + ours["seconds"]
    incremental = added["seconds"]
    # the one file's share of the same-output floor: the floors grow with the rows
    file_floor = floors["same_output_floor_seconds"] / n_files
    return {
        "label": f"{items:,} x {n_files}",
        "items": items,
        "files": n_files,
        "answer_rows": rows,
        "shipped_data": n_items is None,
        "landing": landing,
        "ours": ours,
        "total_seconds": total,
        "peak_rss_mb": max(landing["peak_rss_mb"], ours["peak_rss_mb"]),
        **floors,
        "rebuild_unchanged": unchanged,
        "baseline": baseline,
        "study_ratio": baseline["seconds"] / total if baseline else None,
        "incremental_after_one_file": added,
        "incremental_seconds": incremental,
        # the bound: the build with nothing new plus 3x the file's same-output floor
        "incremental_bound_seconds": unchanged["seconds"] + 3 * file_floor,
    }


def main_wide(quick: bool, out: Path) -> None:
    """bench/results/mcq.{json,md}: the wide files, the shipped 60 x 8 first (the start
    cost), against the three floors and the study's code."""
    os.environ["CONCORD_MEMORY_LIMIT"] = WIDE_MEMORY_LIMIT  # the reader's, as the build's
    os.environ.setdefault("CONCORD_THREADS", "2")
    plan = [(None, 8, None), (300, 4, 5)] if quick else [(None, 8, None), (100_000, 20, 10)]
    dbt_start = run_dbt_version()["seconds"]
    results = []
    for n_items, n_files, iterations in plan:
        print(f"wide files, {n_items or 60} items x {n_files} files ...", flush=True)
        results.append(bench_wide(n_items, n_files, iterations))
        print(json.dumps(results[-1]), flush=True)
    start = results[0]["total_seconds"]
    report = {
        "benchmark": "mcq",
        "quick": quick,
        "machine": {
            "python": platform.python_version(),
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
        },  # fmt: skip
        "memory_limit": WIDE_MEMORY_LIMIT,
        "threads": os.environ["CONCORD_THREADS"],
        "dbt_version_seconds": dbt_start,
        "start_cost_seconds": start,
        "results": results,
    }
    lines = [
        f"Wide CSV files: the reader's landing, then `dbt build --select "
        f"+path:models/marts/mcq`, against the same-output floor (the landing's: every file "
        f"hashed and one typed Parquet copy of the answers; the facts': the answers and the "
        f"items with their types written as tables; the figures': the type and option counts; "
        f"each best of three), DuckDB's memory limit {WIDE_MEMORY_LIMIT} and "
        f"{os.environ['CONCORD_THREADS']} threads on every side. The start cost: the same "
        f"commands on the shipped 60 x 8 files, {start:.1f} s ({start / dbt_start:.1f}× "
        f"`dbt --version`, {dbt_start:.2f} s). The study: its pandas code "
        f"(`bench/study_baseline.py`, 1 000 bootstrap iterations, extrapolated), against our "
        f"landing and build (10 000 resamples).",
        "",
        "| items x files | answer rows | landing (s) | dbt build (s) | total (s) | peak MB | "
        "landing's floor (s) | facts' floor (s) | figures' floor (s) | same-output floor (s) | "
        "(total − start) / same-output floor | nothing new (s) | +1 file, landed and built (s) "
        "| its bound (s) | study (s) | study / total |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        same = r["same_output_floor_seconds"]
        work = f"{(r['total_seconds'] - start) / same:.1f}×" if r is not results[0] else "(start)"
        study = (
            f"{r['baseline']['seconds']:.1f} | {r['study_ratio']:.1f}×"
            if r["baseline"]
            else "— | —"
        )
        lines.append(
            f"| {r['items']:,} x {r['files']}{' (shipped)' if r['shipped_data'] else ''} | "
            f"{r['answer_rows']:,} | {r['landing']['seconds']:.1f} | {r['ours']['seconds']:.1f} | "
            f"{r['total_seconds']:.1f} | {r['peak_rss_mb']:.0f} | "
            f"{r['landing_floor']['seconds']:.2f} | {r['facts_floor']['seconds']:.2f} | "
            f"{r['floor']['seconds']:.2f} | {same:.2f} | {work} | "
            f"{r['rebuild_unchanged']['seconds']:.1f} | {r['incremental_seconds']:.1f} | "
            f"{r['incremental_bound_seconds']:.1f} | {study} |"
        )
    lines += _time_breakdown(results, dbt_start)
    _write_results(out, "mcq_quick" if quick else "mcq", report, lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, seconds")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--long", action="store_true", help="the long-format curve instead")
    parser.add_argument(
        "--landing", type=int, nargs="*", metavar="ROWS",
        help="the reader alone against the landing's floors (default 10^6 and 10^7 rows)",
    )  # fmt: skip
    args = parser.parse_args()
    if args.landing is not None:
        main_landing(args.quick, args.out, args.landing or [1_000_000, 10_000_000])
    elif args.long:
        main_long(args.quick, args.out)
    else:
        main_wide(args.quick, args.out)


def _time_breakdown(results: list[dict], dbt_version_seconds: float) -> list[str]:
    """Where each build's time went, from dbt's run_results.json: the landing before it, the
    process's start (wall time less dbt's own elapsed time: importing dbt, reading the parsed
    project, opening the database) and the summed time of the nodes by kind (two threads run
    nodes side by side, so the sums can exceed the elapsed time)."""
    lines = [
        "",
        f"Where the time goes (`dbt --version` alone: {dbt_version_seconds:.1f} s). Node "
        "times are sums over dbt's two threads.",
        "",
        "| size | build | landing (s) | dbt wall (s) | start-up (s) | nodes | "
        "models (s) | data and unit tests (s) | seeds and hooks (s) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    builds = [
        ("full", "landing", "ours"),
        ("nothing new", None, "rebuild_unchanged"),
        ("+1 file", None, "incremental_after_one_file"),
    ]
    for r in results:
        for label, landing_key, key in builds:
            build = r.get(key)
            if build is None:  # not run at this size
                continue
            nodes = build["node_seconds"]
            tests = nodes.get("test", 0.0) + nodes.get("unit_test", 0.0)
            other = nodes.get("seed", 0.0) + nodes.get("operation", 0.0)
            landed = f"{r[landing_key]['seconds']:.1f}" if landing_key else "—"
            lines.append(
                f"| {r['label']} | {label} | {landed} | "
                f"{build['seconds']:.1f} | "
                f"{build['seconds'] - build['dbt_elapsed_seconds']:.1f} | {build['nodes']} | "
                f"{nodes.get('model', 0.0):.1f} | {tests:.1f} | {other:.1f} |"
            )
    return lines


if __name__ == "__main__":
    main()
