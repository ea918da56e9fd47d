"""Landing the cross-lingual study: every registered input read, checked and written as the
landing's Parquet (docs/landing.md), by the reader's engine (:mod:`concord_io.landing.engine`).

Everything is read and checked before anything is written: a refused input lands nothing
(one line naming the file, row and column). Then each run and the task's items are written
as one folder each, and only where their inputs changed (the folder's fingerprint); folders
of runs no longer registered are removed, so the landing is what the registries say.

Memory does not grow with the inputs: a file is read in batches; what a run's records wait
in is DuckDB (the engine's one connection: records read where they lie, or held there as
tables, spilling beyond DuckDB's memory limit); a wide file is one run, written as soon as
it is read and checked.

A run is one model (and revision) under one variant from one source: a wide file is a run;
the records of the long files and sample logs in one folder with the same model, revision
and variant are a run. The same bytes under two names, read the same way, land once (the
second is reported). Records of a run that are well formed but cannot be an answer (two
records of one task, item and language; a language outside a non-empty ``mcq_languages``)
are set aside in the run's ``quarantine`` table with their reason, not refused.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from concord_common.sql import sql_literal
from concord_io.errors import ConcordError, printable
from concord_io.landing import schemas
from concord_io.landing.engine import (
    Landing,
    LandingReport,
    Outcome,
    fingerprint,
    keep_placeholders,
    open_landing,
    reader_version,
)
from concord_io.landing.inspect_logs import HARNESS, read_log
from concord_io.landing.items import read_items
from concord_io.landing.lm_eval import Provenance, provenance, read_samples, task_of
from concord_io.landing.long import read_long
from concord_io.landing.names import run_id
from concord_io.landing.schemas import Line, Study
from concord_io.landing.seeds import read_model_aliases
from concord_io.landing.sources import SourceFile, first_row, load
from concord_io.landing.study import (
    answer_registry,
    answer_sources,
    fingerprint_in_place,
    item_registry,
    load_study,
    read_translations,
)
from concord_io.landing.wide import read_wide, release_wide

#: Bumped when the reader lands the same inputs differently: every folder is written again.
LANDING_FORMAT = 7  # 7: n_choices; 6: a sample's own domain in English; 5: gold
#: Why a record of a run is set aside (the run's quarantine table).
DUPLICATE = "more than one answer for this model, run, item and language"
OTHER_LANGUAGE = "language not one of mcq_languages"


#: The harness each format of a line is the output of (runs.harness).
HARNESSES = {"lm_eval": "lm_eval", "inspect": HARNESS}
#: The tables of a landed run folder (docs/landing.md).
RUN_TABLES = ("runs", "answers", "option_scores", "quarantine")
#: The columns of a run's records while they wait: the answers' (less ``run_id``, its run's)
#: and ``record_order``, their place in the reading order (by file, then row).
RECORD_COLUMNS = [f.name for f in schemas.ANSWERS if f.name != "run_id"]


@dataclass(frozen=True)
class Piece:
    """Some of a run's records, in DuckDB: ``sql`` selects :data:`RECORD_COLUMNS` and
    ``record_order`` (over the files where they lie, or over ``held``, a table the engine
    holds); ``sources``: the files read where they lie, checked unchanged once written;
    ``clean``: whether no record of its file is set aside by a rule within the file (True:
    known from the file's shape; SQL of one boolean: asked once per file, when the first of
    its runs is written; None: not known)."""

    sql: str
    sources: tuple[SourceFile, ...] = ()
    held: str | None = None
    clean: bool | str | None = None


@dataclass
class Run:
    """A run ready to land: its row of ``runs`` (less ``landed_at``), its records, and what
    its fingerprint is made of."""

    row: dict
    answers: list[Piece] = field(default_factory=list)
    option_scores: list[pa.Table] = field(default_factory=list)
    inputs: list[object] = field(default_factory=list)
    #: the run's records as read, and its quarantine as landed (set by read_source_runs)
    records_table: pa.Table | None = None
    quarantine_table: pa.Table | None = None
    #: already landed from exactly these inputs: not read again (its fingerprint is known
    #: before parsing: the files' content hashes, the registry line, the study's context)
    unchanged: bool = False
    #: written as soon as it was read (a wide file): its outcome's detail
    staged: str | None = None
    #: a held table -> the runs not yet written that read it (the reading's)
    readers: Counter[str] = field(default_factory=Counter)

    def add(self, piece: Piece, inputs: object, scores: pa.Table | None) -> None:
        """Records of one file join the run, with what they are read from."""
        self.answers.append(piece)
        self.inputs.append(inputs)
        if scores is not None:
            self.option_scores.append(scores)
        if piece.held is not None:
            self.readers[piece.held] += 1

    @property
    def run_id(self) -> str:
        return str(self.row["run_id"])

    @property
    def folder(self) -> str:
        return f"mcq/run_id={self.run_id}"


def _fingerprint(*parts: object) -> str:
    return fingerprint(LANDING_FORMAT, *parts)


@dataclass
class Reading:
    """What one landing of the study reads with: the engine, the study, the fingerprint of
    what every run is read against (``context``), the notes, and the reading order."""

    landing: Landing
    study: Study
    context: str = ""
    items_fingerprint: str = ""
    notes: list[str] = field(default_factory=list)
    next_order: int = 0
    #: a file's check (``Piece.clean``'s SQL) -> its answer, asked once
    checked: dict[str, bool] = field(default_factory=dict)
    #: a held table -> the runs not yet written that read it
    readers: Counter[str] = field(default_factory=Counter)

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        return self.landing.con

    def reserve(self, n_rows: int) -> int:
        """The ``record_order`` of record 1 of a file of ``n_rows`` records."""
        first = self.next_order
        self.next_order += n_rows
        return first

    def holds(self, clean: bool | str | None) -> bool:
        if clean is None or isinstance(clean, bool):
            return bool(clean)
        if clean not in self.checked:
            ((answer,),) = self.con.execute(clean).fetchall()
            self.checked[clean] = bool(answer)
        return self.checked[clean]

    def written(self, run: Run) -> None:
        """``run`` is written (or known unchanged): its held tables go with their last run."""
        for piece in run.answers:
            if piece.held is not None:
                self.readers[piece.held] -= 1
                if self.readers[piece.held] <= 0:
                    self.landing.drop([piece.held])
        run.answers, run.option_scores = [], []


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
        "harness": HARNESSES.get(kind),
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


def _landed_alike(reading: Reading, run: Run, fingerprint: str) -> bool:
    """Whether the landing holds ``run`` landed from exactly these inputs (its fingerprint)."""
    return reading.landing.landed_with(run.folder, RUN_TABLES, fingerprint)


def _wide_runs(reading: Reading, lines: list[Line]) -> list[Run]:
    """The runs of the wide files, one a file. Each run is written (staged) as soon as its
    file is read and checked, from the parsed file itself: its records are written once, not
    held until every input is checked (they waited in a spill file, written and read again:
    at 100 000 x 20 files 3.9 s of an 18 s landing).

    A run's fingerprint covers the item files as a long run's does: its rows are checked
    against their prompts, and the task's languages come from them, so a changed or
    unregistered item file lands the run again (and checks it again)."""
    study, con = reading.study, reading.con
    runs: list[Run] = []
    seen: dict[tuple, str] = {}
    for line in lines:  # a loop per file
        source = load(study.answers_dir, line.file)
        way = tuple(line[c] for c in ("model", "prefix", "run", "presented_option_order"))
        if not _once(seen, (source.content_hash, *way), source, reading.notes):
            continue
        row = _run_row(
            model=line["model"],
            variant=line["run"],
            kind="wide_csv",
            folder=study.relative(source.path),
            order=line["presented_option_order"],
        )
        run = Run(row, inputs=[source.name, source.content_hash, way, reading.items_fingerprint])
        # a wide file is one run: its fingerprint is known before it is parsed, so an
        # unchanged file costs one pass of hashing, not a parse (and no memory)
        if _landed_alike(reading, run, _fingerprint(run.row, run.inputs, reading.context)):
            run.unchanged = True
        else:
            query, n_rows, position, clean = read_wide(con, study, line, source)
            first = reading.reserve(n_rows)
            order = f"{first} + ({position}) as record_order"
            run.answers = [Piece(f"select *, {order} from ({query})", (source,), clean=clean)]
            run.staged = _write_run(reading, run).detail(run)
            reading.written(run)
            release_wide(con)
        runs.append(run)
    return runs


def _record_runs(reading: Reading, lines: list[Line], items: pa.Table) -> list[Run]:
    """The runs of the long files and sample logs: records grouped by folder, model,
    revision and variant."""
    study = reading.study
    runs: dict[str, Run] = {}
    seen: dict[tuple, str] = {}
    #: (folder, task, language) -> the log a task_pattern line read it from
    by_task: dict[tuple[str, str, str], str] = {}
    #: a sample log's bytes -> its name, task and language
    logs_read: dict[str, tuple[str, str, str]] = {}
    for line in lines:
        way = tuple(sorted(line.values.items() - {("file", line.file)}))
        for source in _line_files(line):  # a loop per file
            # a sample log's task and language come from its name and line
            read_as = task_of(source, line) if line["format"] == "lm_eval" else None
            if read_as is not None:
                _refuse_same_bytes(logs_read, source, read_as[1:])
            if not _once(seen, (source.content_hash, way, read_as), source, reading.notes):
                continue
            folder = study.relative(source.path.parent)
            if read_as is not None:
                if line["task_pattern"]:
                    _refuse_same_task(by_task, (folder, *read_as[1:]), source, line)
                found, prov, scores = _read_log(reading, line, source, read_as)
            elif line["format"] == "inspect":
                found, prov, scores = _read_inspect_log(reading, line, source)
            else:
                prov, scores = Provenance(), None
                found = _read_long_file(reading, line, source, items, len(seen))
            # the whole file is read and checked: its records join their runs
            inputs = [source.name, source.content_hash, way, reading.items_fingerprint]
            if read_as is not None:  # its results file's delimiter shapes the option texts
                inputs.append(prov.target_delimiter)
            kind = line["format"]
            for (model, variant, order), piece in found.items():
                row = _run_row(
                    model=model, variant=variant, kind=kind, folder=folder, order=order, prov=prov
                )
                _join(reading, runs, row, source).add(piece, inputs, scores)
    return list(runs.values())


def _line_files(line: Line) -> list[SourceFile]:
    """A line's files, hashed; a line registered in place whose files are not the ones it
    was registered with (a file changed, added or gone) refused naming its folder."""
    assert line.base is not None
    loaded = [load(line.base, relative) for relative in line.paths]  # a loop per file
    folder = line.base / line["folder"]
    if (
        line["folder"]
        and fingerprint_in_place(folder, line["format"], loaded) != line["fingerprint"]
    ):
        raise ConcordError(
            f"{line.registry}: {printable(line['folder'])} (registered in place) changed since "
            f"it was registered: its files {printable(line.file)} are not the ones registered",
            hint="register it as it is now (concord add PATH --in-place --replace), or put "
            "back the files it had",
        )
    return loaded


def _join(reading: Reading, runs: dict[str, Run], row: dict, source: SourceFile) -> Run:
    """The run ``row`` describes, the one already met (presented and recorded alike:
    :func:`_refuse_mixed`) or a new one; the tables its pieces hold are counted as read."""
    run = runs.get(row["run_id"])
    if run is None:
        run = runs[row["run_id"]] = Run(row, readers=reading.readers)
    _refuse_mixed(run, row, source)
    return run


def _of_run(model: str, variant: str) -> str:
    return f"model = {sql_literal(model)} and variant = {sql_literal(variant)}"


def _read_log(
    reading: Reading, line: Line, source: SourceFile, read_as: tuple[str, str, str]
) -> tuple[dict[tuple[str, str, str], Piece], Provenance, pa.Table]:
    """A sample log read and checked (``read_as``: its harness task, task and language):
    its records by (model, variant, presented order), in the order met, held in DuckDB;
    its run's provenance; its option scores."""
    harness_task, task, language = read_as
    prov = provenance(source.path.parent, harness_task, source.name)
    answers, scores = read_samples(
        reading.con, reading.study, line, source, task, language, prov.target_delimiter
    )
    return _held_pieces(reading, answers), prov, scores


def _read_inspect_log(
    reading: Reading, line: Line, source: SourceFile
) -> tuple[dict[tuple[str, str, str], Piece], Provenance, None]:
    """An Inspect AI log read and checked: its records by (model, variant, presented
    order), held in DuckDB; its run's provenance (the log scores no option)."""
    answers, run = read_log(reading.con, reading.study, line, source)
    prov = Provenance(revision=run.revision, harness_version=run.harness_version)
    return _held_pieces(reading, answers), prov, None


def _held_pieces(reading: Reading, answers: pa.Table) -> dict[tuple[str, str, str], Piece]:
    """A harness's records (``answers``), their domains checked against the logs read
    before, held in DuckDB as one piece per (model, variant, presented order)."""
    _refuse_other_domains(reading.con, answers)
    first = reading.reserve(answers.num_rows)
    orders = pa.array(np.arange(first, first + answers.num_rows, dtype=np.int64))
    kept = answers.select([*RECORD_COLUMNS, "model", "variant"])
    held = reading.landing.hold(kept.append_column("record_order", orders))
    columns = ", ".join(RECORD_COLUMNS)
    found = {}
    for model, variant, presented in _groups(answers):
        sql = f"select {columns}, record_order from {held} where {_of_run(model, variant)}"
        found[(model, variant, presented)] = Piece(sql, held=held)
    return found


def _read_long_file(
    reading: Reading, line: Line, source: SourceFile, items: pa.Table, number: int
) -> dict[tuple[str, str, str], Piece]:
    """A long file read and checked: its records by (model, variant, presented order), in
    the order met (a file may hold several runs), read where they lie (a Parquet file) or
    held in DuckDB (what was parsed in Python) until their run is written (``number``: the
    file's, for its tables' names)."""
    read = read_long(reading.con, reading.study, line, source, items, f"long_file_{number}")
    held = None
    for name, table in read.tables.items():
        if name != "items":
            held = reading.landing.hold(table, name)
    first = reading.reserve(read.n_rows)
    found = {}
    for model, variant, order in read.runs:
        answers = read.run_answers[(model, variant)]
        sql = f"select *, {first} + (source_row - 1) as record_order from ({answers})"
        found[(model, variant, order)] = Piece(sql, (source,), held, read.clean)
    return found


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


def _relation(run: Run) -> str:
    """SQL naming the run's records (every piece's, in reading order by ``record_order``)."""
    columns = ", ".join([*RECORD_COLUMNS, "record_order"])
    parts = [f"select {columns} from ({piece.sql})" for piece in run.answers]
    return "(" + "\nunion all\n".join(parts) + ")"


@dataclass(frozen=True)
class RunSql:
    """A run's split (:func:`_split`): the records set aside, the SQL of its answers and of
    its quarantine (None: no rows), and its option scores less those set aside."""

    aside: int
    answers: str
    quarantine: str | None
    scores: pa.Table


def _split(reading: Reading, run: Run) -> RunSql:
    """The run's answers, less the records set aside in its quarantine: every record of a
    key (task, item, language) given more than once (which of them counts is not for the
    reader to decide), and records in a language the study does not compare (none when
    the study's languages are empty: it then compares every language its answers hold), and
    every record of an item whose scored options differ between its languages.

    DuckDB reads the run's records where they lie (held tables, the source files themselves)
    and computes the split: no record passes through Python. The records set aside are found
    first, over the key columns alone (few, as a rule); the answers are then one pass over
    the records."""
    con, languages = reading.con, reading.study.compared
    relation = _relation(run)
    scored = _scores_table(run)
    # the records of one file with no key given twice and every language compared (a long
    # file's check, made once for all its runs; a wide file's shape), and no option scores
    # (whose options may differ across languages): nothing to set aside, no query of the
    # run's own (0.23 µs a row over the joined records, and about 18 ms of planning a run)
    checked = len(run.answers) == 1 and not scored.num_rows and reading.holds(run.answers[0].clean)
    aside = 0
    if not checked:
        con.register(
            "run_option_keys", scored.select(["task", "item_id", "language", "option_key"])
        )
        con.execute(
            f"create or replace temp table run_set_aside as {_set_aside(relation, languages)}"
        )
        (aside,) = first_row(con, "select count(*) from run_set_aside") or (0,)
    # nothing set aside (as a rule): the records as they are, no join
    kept_records = (
        f"{relation} as a anti join run_set_aside as f using (record_order)"
        if aside
        else f"{relation} as a"
    )
    answers = f"""
        select {sql_literal(run.run_id)} as run_id, a.* exclude (record_order)
        from {kept_records}
        order by a.record_order
        """
    if aside and scored.num_rows:
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
    return RunSql(aside, answers, _quarantine_sql(run, relation) if aside else None, scored)


def _write_run(reading: Reading, run: Run) -> Split:
    """The run staged as its landing folder: its row of ``runs``, its answers and quarantine
    (:func:`_split`) and its option scores."""
    split = _split(reading, run)
    row = pa.Table.from_pylist([{**run.row, "landed_at": reading.landing.now}],
                               schema=schemas.RUNS)  # fmt: skip
    tables = {
        "runs": (schemas.RUNS, schemas.conform("runs", row)),
        "answers": (schemas.ANSWERS, split.answers),
        "option_scores": (schemas.OPTION_SCORES, split.scores),
        "quarantine": (schemas.QUARANTINE, split.quarantine),
    }
    fp = _fingerprint(run.row, run.inputs, reading.context)
    written = reading.landing.stage(run.folder, tables, fp)  # type: ignore[arg-type]
    assert written["quarantine"].rows == split.aside
    for piece in run.answers:
        for source in piece.sources:  # the records written are the bytes hashed
            source.check_unchanged()
    kept = written["answers"]
    result = Split(kept.rows, kept.rows - kept.nulls["chosen_option"], split.aside)
    reading.landing.staged_detail(run.folder, result.detail(run))
    return result


def _prepare(reading: Reading) -> tuple[pa.Table, list[Run]]:
    """Read and check everything: the items table and the runs (a wide file's staged once
    read; the others' records waiting in DuckDB), setting the reading's notes and the
    fingerprint of what every run is read against (the study's languages and options, the
    domain translations)."""
    study, con = reading.study, reading.con
    item_lines, wide_lines = item_registry(study), answer_registry(study)
    source_lines = answer_sources(study)
    translations = read_translations(study)
    con.register("translations", translations)
    items = read_items(con, study, item_lines)
    reading.landing.hold(items, "items")
    reading.context = _fingerprint(study.languages, study.options, study.task,
                                   translations.to_pydict())  # fmt: skip
    # what the long records' option texts and domains come from
    reading.items_fingerprint = _fingerprint(
        [line.values for line in item_lines],
        con.execute("select distinct source_file, content_hash from items order by all").fetchall(),
        study.options,
        translations.to_pydict(),
    )
    runs = _wide_runs(reading, wide_lines)
    runs += _record_runs(reading, source_lines, items)
    ids = [run.run_id for run in runs]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ConcordError(
            f"run id {repeated[0]} is given by two sources",
            hint="register each run once (one model, revision and variant per source)",
        )
    _refuse_one_model_twice(study, runs)
    return items, runs


def _refuse_one_model_twice(study: Study, runs: list[Run]) -> None:
    """Two runs that are one model (its name as the model aliases make it canonical,
    ``seeds/models/model_aliases.csv``), revision and variant: the marts would hold the
    model twice under one name. Refused naming both sources (the reader knows them; a dbt
    test after the build named neither file)."""
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


def read_source_runs(study: Study, lines: list[Line], notes: list[str]) -> list[Run]:
    """The runs of answer source ``lines`` (their ``paths`` set), read and checked as the
    reader lands them, with their answers and quarantine (each answer with its sample's
    own domain: the item files are not read), and ``notes`` on what the landing would read once:
    what ``concord add`` checks before it registers a folder. Refused as the landing would
    be."""
    with Landing(None) as landing:
        reading = Reading(landing, study, notes=notes)
        items = schemas.ITEMS.empty_table()
        landing.hold(items, "items")
        landing.con.register("translations", read_translations(study))
        runs = _record_runs(reading, lines, items)
        for run in runs:
            split = _split(reading, run)
            run.records_table = landing.con.sql(f"select * from {_relation(run)}").to_arrow_table()
            aside = schemas.QUARANTINE.empty_table()
            if split.quarantine is not None:
                aside = landing.con.sql(split.quarantine).to_arrow_table()
            run.quarantine_table = schemas.conform("quarantine", aside)
    return runs


def land_mcq(
    project_root: Path | str, landing_dir: Path | str, variables: dict | None = None
) -> LandingReport:
    """Land the study's registered inputs under ``landing_dir``; see the module's doc.
    ``variables``: vars given to one dbt call (``--vars``), over ``dbt_project.yml``'s."""
    study = load_study(Path(project_root), variables)
    with open_landing(landing_dir, project_root, study.variables) as landing:
        return land_study(landing, study)


def land_study(landing: Landing, study: Study) -> LandingReport:
    """Land ``study``'s inputs with ``landing`` (its folder checked and held)."""
    reading = Reading(landing, study)
    items, runs = _prepare(reading)
    report = LandingReport(notes=reading.notes)
    pending: list[tuple[Run | None, Outcome | None, str]] = []
    for run in sorted(runs, key=lambda r: r.run_id):
        pending.append((run, _landed_or_staged(reading, run), run.folder))
    kept = {"mcq": {run.folder for run in runs}, "items": set()}
    if items.num_rows:
        relative = f"items/task={study.task}"
        kept["items"].add(relative)
        detail = f"{items.num_rows} item options"
        if landing.landed_with(relative, ["items"], reading.items_fingerprint):
            pending.append((None, Outcome("unchanged", relative, detail), relative))
        else:
            landing.stage(
                relative, {"items": (schemas.ITEMS, items)}, reading.items_fingerprint, detail
            )
            pending.append((None, None, relative))
    committed = landing.commit()
    report.outcomes += [outcome or committed[relative] for _, outcome, relative in pending]
    for area, relatives in kept.items():
        report.outcomes += landing.remove_others(area, relatives, "no longer registered")
    keep_placeholders(landing)
    return report


def _landed_or_staged(reading: Reading, run: Run) -> Outcome | None:
    """The outcome of a run landed already from the same inputs; None for a run staged
    (now, or as soon as it was read: a wide file), whose outcome its commit gives."""
    if run.staged is not None:
        return None
    if run.unchanged:
        detail = (
            f"{run.row['model']}, {run.row['variant']}: not read again "
            f"({run.row['source_folder']} is as it landed)"
        )
        return Outcome("unchanged", run.folder, detail)
    fp = _fingerprint(run.row, run.inputs, reading.context)
    if reading.landing.landed_with(run.folder, RUN_TABLES, fp):
        assert reading.landing.root is not None
        split = _landed_split(reading.landing.root / run.folder)
        if split is None:
            found = _split(reading, run)
            counts = first_row(reading.con, "select count(*), count(a.chosen_option) from "
                               f"({found.answers}) as a")  # fmt: skip
            assert counts is not None  # an aggregate has its one row
            split = Split(counts[0], counts[1], found.aside)
        reading.written(run)
        return Outcome("unchanged", run.folder, split.detail(run))
    _write_run(reading, run)
    reading.written(run)
    return None
