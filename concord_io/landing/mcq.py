"""Landing the cross-lingual study: every registered input read, checked and written as the
landing's Parquet (docs/landing.md).

Everything is read and checked before anything is written: a refused input lands nothing
(one line naming the file, row and column). Then each run and the task's items are written
as one folder each, and only where their inputs changed (the folder's fingerprint); folders
of runs no longer registered are removed, so the landing is what the registries say.

Memory does not grow with the inputs: a file is read in batches, the records read wait for
their run in memory up to a bound and beyond it in spill files
(:mod:`concord_io.landing.spill`), and each run is split and written as its records are
read back.

A run is one model (and revision) under one variant from one source: a wide file is a run;
the records of the long files and sample logs in one folder with the same model, revision
and variant are a run. The same bytes under two names, read the same way, land once (the
second is reported). Records of a run that are well formed but cannot be an answer (two
records of one task, item and language; a language outside a non-empty ``mcq_languages``)
are set aside in the run's ``quarantine`` table with their reason, not refused.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from concord_common import warehouse_lock
from concord_common.project_dir import input_folders
from concord_common.sql import sql_literal
from concord_io.connect import open_duckdb
from concord_io.errors import ConcordError, printable
from concord_io.landing import schemas
from concord_io.landing.identities import canonical_language, run_id
from concord_io.landing.items import read_items, read_translations
from concord_io.landing.lm_eval import Provenance, provenance, read_samples, task_of
from concord_io.landing.long import read_long
from concord_io.landing.placeholders import PLACEHOLDER, keep_placeholders
from concord_io.landing.registries import Line, answer_registry, answer_sources, item_registry
from concord_io.landing.sources import SourceFile, first_row, load
from concord_io.landing.spill import Deferred, FileCheck, Pieces, Records, spill_folder
from concord_io.landing.study import Study, load_study
from concord_io.landing.wide import read_wide, release_wide
from concord_io.landing.writer import (
    Written,
    checked_path,
    commit_staging,
    copy_query,
    disk_errors,
    landed_with,
    open_staging,
    remove_folder,
    staged_folder,
    write_folder,
    write_table,
)
from concord_io.paths import serving_folder_of

#: Bumped when the reader lands the same inputs differently: every folder is written again.
LANDING_FORMAT = 6  # 6: a sample's own domain in English; 5: gold
#: Why a record of a run is set aside (the run's quarantine table).
DUPLICATE = "more than one answer for this model, run, item and language"
OTHER_LANGUAGE = "language not one of mcq_languages"


#: The tables of a landed run folder (docs/landing.md).
RUN_TABLES = ("runs", "answers", "option_scores", "quarantine")


@functools.cache  # asked once per run; reading the package metadata takes 1-2 ms each time
def reader_version() -> str:
    try:
        return metadata.version("concord")
    except metadata.PackageNotFoundError:
        return "unknown"


@dataclass
class Run:
    """A run ready to land: its row of ``runs`` (less ``landed_at``), its tables, and what
    its fingerprint is made of."""

    row: dict
    #: its records as read (in memory or spilled: :class:`Records`)
    answers: Pieces = field(default_factory=list)
    option_scores: list[pa.Table] = field(default_factory=list)
    inputs: list[object] = field(default_factory=list)
    #: the run's tables as landed (set by read_source_runs)
    answers_table: pa.Table | None = None
    quarantine_table: pa.Table | None = None
    scores_table: pa.Table | None = None
    #: already landed from exactly these inputs: not read again (its fingerprint is known
    #: before parsing: the files' content hashes, the registry line, the study's context)
    unchanged: bool = False

    @property
    def run_id(self) -> str:
        return str(self.row["run_id"])


@dataclass(frozen=True)
class Outcome:
    """What happened to one landed folder: ``landed`` (new), ``replaced`` (its inputs
    changed), ``unchanged``, or ``removed`` (no longer registered)."""

    status: str
    folder: str
    detail: str

    def line(self) -> str:
        return f"{self.status:<9} {self.folder}  {self.detail}"


def land_folder(
    root: Path, relative: str, tables: dict[str, pa.Table], fingerprint: str, detail: str
) -> Outcome:
    """``tables`` written whole as ``<root>/<relative>``, unless it is landed with
    ``fingerprint`` already: what happened."""
    if landed_with(root, relative, tables, fingerprint):
        return Outcome("unchanged", relative, detail)
    status = "replaced" if checked_path(root, relative).exists() else "landed"
    write_folder(root, relative, tables, fingerprint)
    return Outcome(status, relative, detail)


def remove_others(root: Path, area: str, key: str, kept: set[str], why: str) -> list[Outcome]:
    """Remove the folders ``<area>/<key>=*`` of ``root`` not in ``kept`` (but the area's
    placeholder, :mod:`concord_io.landing.placeholders`): what was removed."""
    folder = checked_path(root, area)
    removed: list[Outcome] = []
    for path in sorted(folder.glob(f"{key}=*")) if folder.is_dir() else []:
        relative = f"{area}/{path.name}"
        if path.name == f"{key}={PLACEHOLDER}":
            continue  # kept while the area has no real folder
        if relative not in kept and path.is_dir():
            remove_folder(root, relative)
            removed.append(Outcome("removed", relative, why))
    return removed


@dataclass
class LandingReport:
    outcomes: list[Outcome] = field(default_factory=list)
    #: inputs read but not landed again (the same bytes under another name)
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [o.line() for o in self.outcomes] + [f"note      {n}" for n in self.notes]

    def status_of(self, folder: str) -> str | None:
        return next((o.status for o in self.outcomes if o.folder == folder), None)


def _fingerprint(*parts: object) -> str:
    text = json.dumps([LANDING_FORMAT, reader_version(), *parts], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _run_row(
    *,
    model: str,
    variant: str,
    kind: str,
    folder: str,
    order: str,
    prov: Provenance | None = None,
) -> dict:
    prov = prov or Provenance()
    return {
        "run_id": run_id(model, prov.revision, variant, folder),
        "model": model,
        "model_revision": prov.revision,
        "variant": variant,
        "prompt_template": None,
        "prompt_template_hash": None,
        "n_fewshot": prov.n_fewshot,
        "harness": "lm_eval" if kind == "lm_eval" else None,
        "harness_version": prov.harness_version,
        "task_hashes": list(prov.task_hashes.items()) if prov.task_hashes else None,
        "source_kind": kind,
        "source_folder": folder,
        "presented_option_order": order,
        "reader_version": reader_version(),
    }


def _once(sources: dict[tuple, str], key: tuple, source: SourceFile, notes: list[str]) -> bool:
    """False (and a note) when the same bytes, read the same way, were met under another
    name: names are not identities."""
    first = sources.setdefault(key, source.name)
    if first != source.name:
        notes.append(f"{source.name}: the same bytes as {first}, read the same way; landed once")
        return False
    return True


def _landed_alike(root: Path | None, run: Run, fingerprint: str) -> bool:
    """Whether ``root`` holds ``run`` landed from exactly these inputs (its fingerprint)."""
    return root is not None and landed_with(
        root, f"mcq/run_id={run.run_id}", RUN_TABLES, fingerprint
    )


def _wide_runs(
    con: duckdb.DuckDBPyConnection,
    study: Study,
    lines: list[Line],
    notes: list[str],
    records: Records,
    root: Path,
    context: str,
    staged: Staged,
    items_fingerprint: str,
) -> list[Run]:
    """The runs of the wide files, one a file. Each run is written into its hidden folder
    (``staged``) as soon as its file is read and checked, from the parsed file itself: its
    records are written once, not held until every input is checked (they waited in a spill
    file, written and read again: at 100 000 x 20 files 3.9 s of an 18 s landing).

    A run's fingerprint covers the item files (``items_fingerprint``) as a long run's does:
    its rows are checked against their prompts, and the task's languages come from them, so
    a changed or unregistered item file lands the run again (and checks it again)."""
    runs: list[Run] = []
    seen: dict[tuple, str] = {}
    for line in lines:  # a loop per file
        source = load(study.answers_dir, line.file)
        way = tuple(line[c] for c in ("model", "prefix", "run", "presented_option_order"))
        if not _once(seen, (source.content_hash, *way), source, notes):
            continue
        row = _run_row(
            model=line["model"],
            variant=line["run"],
            kind="wide_csv",
            folder=study.relative(source.path),
            order=line["presented_option_order"],
        )
        inputs: list[object] = [source.name, source.content_hash, way, items_fingerprint]
        run = Run(row, answers=records.pieces(), inputs=inputs)
        # a wide file is one run: its fingerprint is known before it is parsed, so an
        # unchanged file costs one pass of hashing, not a parse (and no memory)
        if _landed_alike(root, run, _fingerprint(run.row, run.inputs, context)):
            run.unchanged = True
        else:
            query, n_rows, position, clean = read_wide(con, study, line, source)
            first = records.reserve(n_rows)
            check = FileCheck.known() if clean else None  # nothing a set-aside query could find
            records.defer(run.answers, Deferred(query, {}, (source,), first, position, check))
            staged.write(con, run, records)
            records.forget(run.answers)
            run.answers = []
            release_wide(con)
        runs.append(run)
    return runs


def _record_runs(
    con: duckdb.DuckDBPyConnection,
    study: Study,
    lines: list[Line],
    items: pa.Table,
    items_fingerprint: str,
    notes: list[str],
    records: Records,
) -> list[Run]:
    """The runs of the long files and sample logs: records grouped by folder, model,
    revision and variant."""
    runs: dict[str, Run] = {}
    seen: dict[tuple, str] = {}
    #: (folder, task, language) -> the log a task_pattern line read it from
    by_task: dict[tuple[str, str, str], str] = {}
    #: a sample log's bytes -> its name, task and language
    logs_read: dict[str, tuple[str, str, str]] = {}
    for line in lines:
        way = tuple(sorted(line.values.items() - {("file", line.file)}))
        for relative in line.paths:  # a loop per file
            source = load(study.sources_dir, relative)
            # a sample log's task and language come from its name and line
            read_as = task_of(source, line) if line["format"] == "lm_eval" else None
            if read_as is not None:
                _refuse_same_bytes(logs_read, source, read_as[1:])
            if not _once(seen, (source.content_hash, way, read_as), source, notes):
                continue
            folder = study.relative(source.path.parent)
            if read_as is not None:
                if line["task_pattern"]:
                    _refuse_same_task(by_task, (folder, *read_as[1:]), source, line)
                found, prov, scores = _read_log(con, study, line, source, read_as, records)
            else:
                prov, scores = Provenance(), None
                found = _read_long_file(con, study, line, source, items, records, len(seen))
            # the whole file is read and checked: its records join their runs
            inputs = [source.name, source.content_hash, way, items_fingerprint]
            if read_as is not None:  # its results file's delimiter shapes the option texts
                inputs.append(prov.target_delimiter)
            kind = "long" if read_as is None else "lm_eval"
            for (model, variant, order), pieces in found.items():
                row = _run_row(
                    model=model, variant=variant, kind=kind, folder=folder, order=order, prov=prov
                )
                run = _joined(runs, row, source, records)
                run.inputs.append(inputs)
                if scores is not None:
                    run.option_scores.append(scores)
                records.move(pieces, run.answers)
    return list(runs.values())


def _joined(runs: dict[str, Run], row: dict, source: SourceFile, records: Records) -> Run:
    """The run ``row`` describes, the one already met (presented and recorded alike:
    :func:`_refuse_mixed`) or a new one."""
    run = runs.get(row["run_id"])
    if run is None:
        run = runs[row["run_id"]] = Run(row, answers=records.pieces())
    _refuse_mixed(run, row, source)
    return run


def _read_log(
    con: duckdb.DuckDBPyConnection,
    study: Study,
    line: Line,
    source: SourceFile,
    read_as: tuple[str, str, str],
    records: Records,
) -> tuple[dict[tuple[str, str, str], Pieces], Provenance, pa.Table]:
    """A sample log read and checked (``read_as``: its harness task, task and language):
    its records by (model, variant, presented order), in the order met, waiting in
    ``records``; its run's provenance; its option scores."""
    harness_task, task, language = read_as
    prov = provenance(source.path.parent, harness_task, source.name)
    answers, scores = read_samples(con, study, line, source, task, language, prov.target_delimiter)
    _refuse_other_domains(con, answers)
    found: dict[tuple[str, str, str], Pieces] = {}
    for model, variant, order in _groups(answers):
        pieces = found[(model, variant, order)] = records.pieces()
        records.add(pieces, _of_run(answers, model, variant))
    return found, prov, scores


def _read_long_file(
    con: duckdb.DuckDBPyConnection,
    study: Study,
    line: Line,
    source: SourceFile,
    items: pa.Table,
    records: Records,
    number: int,
) -> dict[tuple[str, str, str], Pieces]:
    """A long file read and checked: its records by (model, variant, presented order), in
    the order met (a file may hold several runs), read where they lie when their run is
    written (``number``: the file's, for its tables' names)."""
    read = read_long(con, study, line, source, items, f"long_file_{number}")
    first = records.reserve(read.n_rows)
    found: dict[tuple[str, str, str], Pieces] = {}
    for model, variant, order in read.runs:
        pieces = found[(model, variant, order)] = records.pieces()
        answers = read.run_answers[(model, variant)]
        records.defer(pieces, Deferred(answers, read.tables, (source,), first, clean=read.clean))
    return found


def _of_run(answers: pa.Table, model: str, variant: str) -> pa.Table:
    """The answers of one run of ``answers``."""
    return answers.filter(
        pc.and_(
            pc.equal(answers.column("model"), model),
            pc.equal(answers.column("variant"), variant),
        )
    )


def _groups(answers: pa.Table) -> list[tuple[str, str, str]]:
    """The (model, variant, presented order) of ``answers``' records, in the order met."""
    keys = ["model", "variant", "presented_order"]
    groups = answers.select(keys).group_by(keys, use_threads=False).aggregate([])
    return list(zip(*(groups.column(c).to_pylist() for c in keys), strict=True))


def _refuse_same_bytes(
    logs_read: dict[str, tuple[str, str, str]], source: SourceFile, read_as: tuple[str, str]
) -> None:
    """A sample log holds one task's answers in one language: the same bytes read as
    another task or language (a log copied under another language's name) would land one
    model's answers as two languages' and agree with themselves."""
    first = logs_read.setdefault(source.content_hash, (source.name, *read_as))
    if first[1:] != read_as:
        raise ConcordError(
            f"mcq_answer_sources: {printable(source.name)} (task {printable(read_as[0])}, "
            f"language {read_as[1]}) has the same bytes as {printable(first[0])} (task "
            f"{printable(first[1])}, language {first[2]}): one log cannot be the answers of "
            "two tasks or languages",
            hint="one of them was copied under the other's name: restore the harness's own "
            "log of that task and language, or remove the copy",
        )


def _refuse_same_task(
    by_task: dict[tuple[str, str, str], str], key: tuple[str, str, str], source: SourceFile, line
) -> None:
    """Two logs of one folder that a task pattern reads as one task and language: which of
    them holds the answers is not for the reader to decide."""
    first = by_task.setdefault(key, source.name)
    if first != source.name:
        raise ConcordError(
            f"mcq_answer_sources: {printable(first)} and {printable(source.name)} both give "
            f"task {printable(key[1])}, language {key[2]} (task_pattern "
            f"{printable(line['task_pattern'])})",
            hint="keep one harness run per folder (move the other's files to another folder), "
            "or set a task_pattern that tells the tasks apart",
        )


def _refuse_other_domains(con: duckdb.DuckDBPyConnection, answers: pa.Table) -> None:
    """The languages of one item are one domain: a sample log's items (``answers``) must
    have the English domain the logs read before gave them (``sample_domains``, on ``con``,
    one row per task and item); refused naming both records. A wide file's row and an item
    file's are checked where they are read."""
    con.execute(
        "create temp table if not exists sample_domains (task varchar, item_id varchar, "
        "language varchar, domain_label varchar, domain varchar, source_file varchar, "
        "source_row bigint)"
    )
    con.register(
        "log_domains",
        answers.select(list(con.table("sample_domains").columns)).filter(
            pc.is_valid(answers.column("domain"))
        ),
    )
    found = first_row(
        con,
        """
        select n.*, o.*
        from log_domains as n
        inner join sample_domains as o using (task, item_id)
        where n.domain <> o.domain
        order by n.source_row
        limit 1
        """,
    )
    if found is None:
        con.execute(
            "insert into sample_domains select * from log_domains "
            "anti join sample_domains using (task, item_id) qualify row_number() over "
            "(partition by task, item_id order by source_row) = 1"
        )
    con.unregister("log_domains")
    if found is not None:
        task, item, lang, label, domain, file, row = found[:7]
        _, _, first_lang, first_label, first_domain, first_file, first_row_ = found[7:]
        raise ConcordError(
            f"{printable(file)}: line {row}: item {printable(item)} of task {printable(task)} "
            f"has domain {printable(domain)} ({lang} label {printable(label)}), but "
            f"{printable(first_file)}: line {first_row_} gives it {printable(first_domain)} "
            f"({first_lang} label {printable(first_label)}): the languages of one item are "
            "one domain",
            hint="map each label to its English name in seeds/mcq/mcq_domain_translations.csv "
            f"(a line {lang},<label>,<English name>), or correct the log",
        )


def _refuse_mixed(run: Run, row: dict, source: SourceFile) -> None:
    """One run, one way of presenting and recording it."""
    for column in ("source_kind", "presented_option_order", "harness_version", "n_fewshot"):
        if run.row[column] != row[column]:
            raise ConcordError(
                f"{printable(source.name)}: run {run.run_id} ({printable(row['model'])}, "
                f"{row['variant']}) already has {column} {printable(run.row[column])} from "
                f"another file of {printable(row['source_folder'])}; this file has "
                f"{printable(row[column])}",
                hint="a run is one model revision under one prompt variant: put files that "
                "differ in another folder, or give them another run",
            )
    if row["task_hashes"]:
        merged = dict(run.row["task_hashes"] or []) | dict(row["task_hashes"])
        run.row["task_hashes"] = sorted(merged.items())


def _scores_table(run: Run) -> pa.Table:
    if not run.option_scores:
        # written for every run, empty where the source scores no option: dbt reads the
        # same files on every engine (Spark cannot ask whether a file exists)
        return schemas.TABLES["option_scores"].empty_table()
    table = pa.concat_tables(run.option_scores)
    return schemas.conform(
        "option_scores",
        table.append_column("run_id", pa.repeat(run.run_id, table.num_rows)),
    )


@dataclass(frozen=True)
class Split:
    """What a run's split found: its answers (``valid`` of them with a chosen option) and
    the records it set aside."""

    answers: int
    valid: int
    aside: int

    def detail(self, run: Run) -> str:
        aside = f", {self.aside} set aside" if self.aside else ""
        return (
            f"{run.row['model']}, {run.row['variant']}: {self.answers} answers "
            f"({self.valid} valid{aside}) from {run.row['source_folder']}"
        )


def _across_records(relation: str) -> str:
    """SQL: the checks that span a run's records (``relation``), as common table
    expressions: ``repeated``, its keys given more than once, and ``misaligned``, its items
    whose scored options differ between languages, with the reason (the
    ``run_option_keys`` relation must be registered)."""
    return f"""
        with repeated as (
            select task, item_id, language
            from {relation}
            group by task, item_id, language
            having count(*) > 1
        ),
        -- an item's options must be the same in every language: at 40 separately
        -- translated languages a misaligned key would count silently as disagreement
        option_sets as (
            select task, item_id, language, string_agg(option_key, '' order by option_key) as keys
            from run_option_keys
            group by task, item_id, language
        ),
        misaligned as (
            select
                task,
                item_id,
                'options differ across languages ('
                    || string_agg(language || ': ' || keys, '; ' order by language) || ')'
                    as reason
            from option_sets
            group by task, item_id
            having count(distinct keys) > 1
        )
        """


def _outside(languages: list[str]) -> str:
    """SQL: a record (``a``) in a language the study does not compare."""
    listed = ", ".join(sql_literal(language) for language in languages)
    return f"a.language not in ({listed})" if languages else "false"


def _set_aside(relation: str, languages: list[str]) -> str:
    """SQL: the run's records (``relation``) set aside, by ``record_order``, with why
    (``set_aside``); read over the key columns alone (the ``run_option_keys`` relation must
    be registered)."""
    reason = f"""
            case
                when r.task is not null then {sql_literal(DUPLICATE)}
                when {_outside(languages)} then {sql_literal(OTHER_LANGUAGE)}
                when m.task is not null then m.reason
            end"""
    return f"""
        {_across_records(relation)}
        select a.record_order, {reason} as set_aside
        from {relation} as a
        left join repeated as r using (task, item_id, language)
        left join misaligned as m using (task, item_id)
        where {reason} is not null
        """


def _quarantine_sql(run: Run, relation: str) -> str:
    """SQL: the quarantine rows of the run's records set aside (``run_set_aside``)."""
    return f"""
        select
            {sql_literal(run.run_id)} as run_id,
            a.source_file,
            a.source_row,
            a.source_file || '#' || a.source_row as record_key,
            a.source_column as column_name,
            a.raw_answer as value,
            f.set_aside as reason,
            a.content_hash
        from {relation} as a
        inner join run_set_aside as f using (record_order)
        order by a.record_order
        """


def _landed_split(folder: Path) -> Split | None:
    """What a landed run's split found, from its files' own metadata (row counts, the null
    count of ``chosen_option``): an unchanged run is not split again. None where the
    metadata does not say (no statistics)."""
    try:
        answers = pq.ParquetFile(folder / "answers.parquet")
        aside = pq.ParquetFile(folder / "quarantine.parquet").metadata.num_rows
        column = answers.schema_arrow.get_field_index("chosen_option")
        nulls = 0
        for index in range(answers.metadata.num_row_groups):
            statistics = answers.metadata.row_group(index).column(column).statistics
            if statistics is None or not statistics.has_null_count:
                return None
            nulls += statistics.null_count
    except (OSError, pa.ArrowException):
        return None
    rows = answers.metadata.num_rows
    return Split(rows, rows - nulls, aside)


def _split(
    con: duckdb.DuckDBPyConnection,
    run: Run,
    records: Records,
    languages: list[str],
    write: Callable[[str, pa.Schema, str | None], Written] | None = None,
) -> tuple[Split, pa.Table]:
    """The run's answers, less the records set aside in its quarantine: every record of a
    key (task, item, language) given more than once (which of them counts is not for the
    reader to decide), and records in a language the study does not compare (none when
    ``languages`` is empty: the study then compares every language its answers hold), and
    every record of an item whose scored options differ between its languages.

    ``write(name, schema, sql)`` is given the SQL of the run's ``answers`` and
    ``quarantine`` tables (in reading order; None for a table with no rows, which needs no
    query) and says what it wrote; without it the
    records are only counted. DuckDB reads the run's records where they lie (memory, spill
    files, the source files themselves) and computes the split: no record passes through
    Python. The records set aside are found first, over the key columns alone (few, as a
    rule); the answers are then one pass over the records. Returns the counts and the run's
    option scores (less those of records set aside)."""
    relation = records.relation(con, run.answers, "run_answers")
    scored = _scores_table(run)
    (piece,) = run.answers if len(run.answers) == 1 else (None,)
    # the records of one file with no key given twice and every language compared (a long
    # file's check, made once for all its runs; a wide file's shape), and no option scores
    # (whose options may differ across languages): nothing to set aside, no query of the
    # run's own (0.23 µs a row over the joined records, and about 18 ms of planning a run)
    checked = (
        isinstance(piece, Deferred)
        and piece.clean is not None
        and not scored.num_rows
        and piece.clean.holds(con)
    )
    if not checked:
        con.register(
            "run_option_keys", scored.select(["task", "item_id", "language", "option_key"])
        )
        con.execute(
            f"create or replace temp table run_set_aside as {_set_aside(relation, languages)}"
        )
    (aside,) = (0,) if checked else first_row(con, "select count(*) from run_set_aside") or (0,)
    # nothing set aside (as a rule): the records as they are, no join
    kept_records = (
        f"{relation} as a anti join run_set_aside as f using (record_order)"
        if aside
        else f"{relation} as a"
    )
    if write is None:
        found = first_row(con, f"select count(*), count(a.chosen_option) from {kept_records}")
        assert found is not None  # an aggregate has its one row
        split = Split(found[0], found[1], aside)
    else:
        answers = f"""
            select {sql_literal(run.run_id)} as run_id, a.* exclude (record_order)
            from {kept_records}
            order by a.record_order
            """
        kept = write("answers", schemas.ANSWERS, answers)
        # nothing set aside: an empty table, no query (a DuckDB copy costs 10 ms a run)
        written = write("quarantine", schemas.QUARANTINE,
                        _quarantine_sql(run, relation) if aside else None)  # fmt: skip
        assert written.rows == aside
        split = Split(kept.rows, kept.rows - kept.nulls["chosen_option"], aside)
    records.check_unchanged(run.answers)
    if split.aside and scored.num_rows:
        # the scores of a record set aside go with it
        con.register("run_scores", scored)
        scored = con.sql(
            f"""
            select s.* from run_scores as s
            semi join (select a.source_file, a.source_row from {kept_records})
                as k using (source_file, source_row)
            order by s.source_file, s.source_row, s.presented_position
            """
        ).to_arrow_table()
        con.unregister("run_scores")
        scored = schemas.conform("option_scores", scored)
    if not checked:
        con.execute("drop table run_set_aside")
        con.unregister("run_option_keys")
    records.release(con)
    return split, scored


def _prepare(
    study: Study, records: Records, root: Path, staged: Staged
) -> tuple[pa.Table, str, list[Run], list[str], str]:
    """Read and check everything: the items table, its fingerprint, the runs (a wide file's
    written into its hidden folder in ``staged`` once read; the others' records waiting in
    ``records``; each run split into kept and quarantined records as it is written:
    :func:`_split`), the notes, and the fingerprint of what every run is read against (the
    study's languages and options, the domain translations)."""
    notes: list[str] = []
    item_lines, wide_lines = item_registry(study), answer_registry(study)
    source_lines = answer_sources(study)
    with open_duckdb() as con:
        records.engine_spill(con)
        translations = read_translations(study)
        con.register("translations", translations)
        items = read_items(con, study, item_lines)
        con.register("items", items)
        context = _fingerprint(study.languages, study.options, study.task, translations.to_pydict())
        # what the long records' option texts and domains come from
        items_fingerprint = _fingerprint(
            [line.values for line in item_lines],
            con.execute(
                "select distinct source_file, content_hash from items order by all"
            ).fetchall(),
            study.options,
            translations.to_pydict(),
        )
        staged.context = context
        runs = _wide_runs(
            con, study, wide_lines, notes, records, root, context, staged, items_fingerprint
        )
        runs += _record_runs(con, study, source_lines, items, items_fingerprint, notes, records)
    ids = [run.run_id for run in runs]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ConcordError(
            f"run id {repeated[0]} is given by two sources",
            hint="register each run once (one model, revision and variant per source)",
        )
    _refuse_one_model_twice(study, runs)
    return items, items_fingerprint, runs, notes, context


def _refuse_one_model_twice(study: Study, runs: list[Run]) -> None:
    """Two runs that are one model (its name as the model aliases make it canonical,
    ``seeds/models/model_aliases.csv``), revision and variant: the marts would hold the
    model twice under one name. Refused naming both sources (the reader knows them; a dbt
    test after the build named neither file)."""
    # imported here: the seed reader imports this module's landing folder helpers
    from concord_io.landing.seeds import read_model_aliases

    aliases = read_model_aliases(study.root)
    first: dict[tuple, Run] = {}
    for run in sorted(runs, key=lambda r: r.row["source_folder"]):
        model = run.row["model"]
        canonical = aliases.get(model) or model
        key = (canonical, run.row["model_revision"], run.row["variant"])
        other = first.setdefault(key, run)
        if other is not run:
            revision = f" revision {run.row['model_revision']}" if key[1] else ""
            raise ConcordError(
                f"{printable(other.row['source_folder'])} (model "
                f"{printable(other.row['model'])}) and {printable(run.row['source_folder'])} "
                f"(model {printable(model)}) are both model {printable(canonical)}{revision}, "
                f"variant {printable(key[2])} (seeds/models/model_aliases.csv): the marts "
                "would hold one model twice",
                hint="keep one of the two runs (remove the other's files and registry line), "
                "or give them different variants",
            )


def _collect(
    con: duckdb.DuckDBPyConnection, tables: dict[str, pa.Table]
) -> Callable[[str, pa.Schema, str | None], Written]:
    """A ``write`` for :func:`_split` that keeps each table in ``tables``."""

    def collect(name: str, schema: pa.Schema, sql: str | None) -> Written:
        found = schema.empty_table() if sql is None else con.sql(sql).to_arrow_table()
        tables[name] = schemas.conform(name, found)
        return Written.of(tables[name])

    return collect


def read_source_runs(study: Study, lines: list[Line], notes: list[str]) -> list[Run]:
    """The runs of answer source ``lines`` (their ``paths`` set), read and checked as the
    reader lands them, with their answers and quarantine (each answer with its sample's
    own domain: the item files are not read), and ``notes`` on what the landing would read once:
    what ``concord add`` checks before it registers a folder. Refused as the landing would
    be."""
    languages = [
        canonical_language(lang, "dbt_project.yml: vars", column="mcq_languages")
        for lang in study.languages
    ]
    records = Records()  # in memory: a folder the command adds
    with open_duckdb() as con:
        items = schemas.ITEMS.empty_table()
        con.register("items", items)
        con.register("translations", read_translations(study))
        runs = _record_runs(con, study, lines, items, "", notes, records)
        for run in runs:
            tables: dict[str, pa.Table] = {}
            _, run.scores_table = _split(con, run, records, languages, _collect(con, tables))
            run.answers_table, run.quarantine_table = tables["answers"], tables["quarantine"]
    return runs


def checked_landing_folder(
    landing_dir: Path | str, project: Path | str, variables: dict | None = None
) -> Path:
    """The landing folder, resolved; refused (before anything is read or written) when it is
    a file, lies in a serving folder, whose published versions are never written again, or
    holds or lies in an input folder of ``project`` (:func:`input_folders`: the seed files
    would land among the inputs, then be refused as unregistered input at every build)."""
    root = Path(landing_dir).resolve()
    hint = "set CONCORD_LANDING_DIR to a folder of its own (default warehouse/landing)"
    if root.exists() and not root.is_dir():
        raise ConcordError(f"landing folder {printable(root)} is a file, not a folder", hint=hint)
    serving = serving_folder_of(root)
    if serving is not None:
        raise ConcordError(
            f"landing folder {printable(root)} lies in the serving folder {printable(serving)}",
            hint=hint,
        )
    for folder in input_folders(Path(project), variables):
        inputs = folder.resolve()
        if root == inputs or root.is_relative_to(inputs) or inputs.is_relative_to(root):
            where = "lies in" if root.is_relative_to(inputs) else "holds"
            raise ConcordError(
                f"landing folder {printable(root)} {where} the input folder "
                f"{printable(inputs)}: the landing is written and replaced whole, never among "
                "the inputs",
                hint=hint,
            )
    return root


@contextmanager
def locked_landing(
    landing_dir: Path | str, project: Path | str, variables: dict | None = None
) -> Iterator[Path]:
    """The landing folder checked (:func:`checked_landing_folder`) and held under the
    warehouse lock (:mod:`concord_common.warehouse_lock`) while it is written: no build reads
    it, no other landing or probe run writes it, meanwhile."""
    root = checked_landing_folder(landing_dir, project, variables)
    with warehouse_lock.held(root, "concord land", error=ConcordError):
        yield root


def land_mcq(
    project_root: Path | str, landing_dir: Path | str, variables: dict | None = None
) -> LandingReport:
    """Land the study's registered inputs under ``landing_dir``; see the module's doc.
    ``variables``: vars given to one dbt call (``--vars``), over ``dbt_project.yml``'s."""
    study = load_study(Path(project_root), variables)
    with locked_landing(landing_dir, project_root, variables) as root:
        # the records read wait in memory, or beyond a bound in spill files of the landing
        records = Records(spill_folder(root))
        try:
            return _land(root, study, records)
        finally:
            records.close()
        # Arrow's allocator keeps freed pages for reuse; in dbt's process the models need them
        pa.default_memory_pool().release_unused()


def _land_run(
    con: duckdb.DuckDBPyConnection,
    root: Path,
    relative: str,
    run: Run,
    records: Records,
    languages: list[str],
    now: datetime,
    context: str,
) -> Outcome:
    """One run landed as ``<root>/<relative>``, unless it is landed from the same inputs."""
    if run.unchanged:
        detail = (
            f"{run.row['model']}, {run.row['variant']}: not read again "
            f"({run.row['source_folder']} is as it landed)"
        )
        return Outcome("unchanged", relative, detail)
    fingerprint = _fingerprint(run.row, run.inputs, context)
    if landed_with(root, relative, RUN_TABLES, fingerprint):
        split = _landed_split(checked_path(root, relative))
        if split is None:
            split, _ = _split(con, run, records, languages)
        return Outcome("unchanged", relative, split.detail(run))
    status = "replaced" if checked_path(root, relative).exists() else "landed"
    with staged_folder(root, relative) as staging:
        split = _write_run(con, staging, run, records, languages, now, fingerprint)
    return Outcome(status, relative, split.detail(run))


def _write_run(
    con: duckdb.DuckDBPyConnection,
    staging: Path,
    run: Run,
    records: Records,
    languages: list[str],
    now: datetime,
    fingerprint: str,
) -> Split:
    """The run's tables written into the folder ``staging``: its row of ``runs``, its
    answers and quarantine (:func:`_split`) and its option scores."""
    runs_table = pa.Table.from_pylist([{**run.row, "landed_at": now}], schema=schemas.RUNS)
    write_table(staging, "runs", schemas.conform("runs", runs_table), fingerprint)

    def copy(name: str, schema: pa.Schema, sql: str | None) -> Written:
        if sql is None:
            write_table(staging, name, schema.empty_table(), fingerprint)
            return Written.of(schema.empty_table())
        return copy_query(con, sql, staging, schema, name, fingerprint)

    split, scores = _split(con, run, records, languages, copy)
    write_table(staging, "option_scores", scores, fingerprint)
    return split


@dataclass
class Staged:
    """Runs written into hidden folders while the other inputs are still being read and
    checked, each renamed into place by :meth:`commit` once everything is (a refused input
    lands nothing: :meth:`discard` removes them)."""

    root: Path
    languages: list[str]
    now: datetime
    #: the fingerprint of what every run is read against (set once it is known)
    context: str = ""
    #: run id -> its hidden folder, written whole, and what its split found
    folders: dict[str, tuple[Path, Split]] = field(default_factory=dict)
    #: every hidden folder opened (removed by discard unless renamed into place), and the
    #: folders made for them (removed by discard where left empty)
    opened: list[Path] = field(default_factory=list)
    made: list[Path] = field(default_factory=list)

    def write(self, con: duckdb.DuckDBPyConnection, run: Run, records: Records) -> None:
        # the folders the hidden one's creation makes (the area's, on a first landing)
        # are removed with it by discard: a refused input leaves no trace
        made = checked_path(self.root, _run_folder(run)).parent
        while not made.exists() and made not in self.made:
            self.made.append(made)
            made = made.parent
        staging = open_staging(self.root, _run_folder(run))
        self.opened.append(staging)
        with disk_errors(self.root, _run_folder(run)):
            fingerprint = _fingerprint(run.row, run.inputs, self.context)
            split = _write_run(con, staging, run, records, self.languages, self.now, fingerprint)
        self.folders[run.run_id] = (staging, split)

    def commit(self, run: Run) -> Outcome:
        """The run's hidden folder renamed into place, replacing an earlier version."""
        relative = _run_folder(run)
        staging, split = self.folders.pop(run.run_id)
        status = "replaced" if checked_path(self.root, relative).exists() else "landed"
        commit_staging(self.root, relative, staging)
        return Outcome(status, relative, split.detail(run))

    def discard(self) -> None:
        """Remove every hidden folder not renamed into place."""
        for staging in self.opened:
            if staging.exists():  # renamed into place otherwise
                shutil.rmtree(staging, ignore_errors=True)
        for made in self.made:  # the deepest first
            if made.is_dir() and not any(made.iterdir()):
                made.rmdir()
        self.folders.clear()
        self.opened.clear()
        self.made.clear()


def _run_folder(run: Run) -> str:
    return f"mcq/run_id={run.run_id}"


def _land(root: Path, study: Study, records: Records) -> LandingReport:
    languages = [
        canonical_language(lang, "dbt_project.yml: vars", column="mcq_languages")
        for lang in study.languages
    ]
    staged = Staged(root, languages, datetime.now(UTC))
    try:
        return _land_prepared(root, study, records, staged)
    finally:
        staged.discard()


def _land_prepared(root: Path, study: Study, records: Records, staged: Staged) -> LandingReport:
    items, items_fingerprint, runs, notes, context = _prepare(study, records, root, staged)
    languages, now = staged.languages, staged.now
    root.mkdir(parents=True, exist_ok=True)
    report = LandingReport(notes=notes)

    kept: dict[str, set[str]] = {"mcq": set(), "items": set()}
    # one connection writes every run, one at a time: split and written by DuckDB from
    # where its records lie, then let go
    with open_duckdb() as con:
        records.engine_spill(con)
        for run in sorted(runs, key=lambda r: r.run_id):
            relative = _run_folder(run)
            kept["mcq"].add(relative)
            if run.run_id in staged.folders:  # written while the inputs were read
                report.outcomes.append(staged.commit(run))
                continue
            report.outcomes.append(_land_run(con, root, relative, run, records, languages, now,
                                             context))  # fmt: skip
            records.forget(run.answers)
            run.answers, run.option_scores = [], []
    if items.num_rows:
        relative = f"items/task={study.task}"
        kept["items"].add(relative)
        detail = f"{items.num_rows} item options"
        report.outcomes.append(
            land_folder(root, relative, {"items": items}, items_fingerprint, detail)
        )
    for area, relatives in kept.items():
        key = "run_id" if area == "mcq" else "task"
        report.outcomes += remove_others(root, area, key, relatives, "no longer registered")
    keep_placeholders(root)
    return report
