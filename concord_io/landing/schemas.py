"""The landing's tables as Arrow schemas, declared once in the sources yml.

Where the seed files are declared: the dbt sources of the staging folders.

A source whose ``config.meta.seed_folder`` names a folder of the project
(``models/staging/rater/_rater__sources.yml``: ``seed_folder: seeds/rater``) holds one table
per CSV file of that folder, ``<seed_folder>/<table>.csv``; each column's ``data_type`` is
that column's one declaration, which the reader lands it as
(:mod:`concord_io.landing.seeds`) and the ``read_landed_seed`` macro reads it as. A column
that holds a language tag or a name says so once, ``config: {meta: {format: language_tag}}``
(:data:`SEED_FORMATS`), and the reader lands it canonical or refuses it; a table whose lines
have a key says so once, ``config: {meta: {primary_key: [task, language]}}``, and the reader
refuses a blank or repeated key, naming the rows; a table that maps names to names says so
once, ``config: {meta: {maps: [spelling, model]}}``, and the reader refuses a blank target
and a chain (a target that another line maps on), naming the rows."""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from concord_common.landing_declaration import declaration_file, declared_tables
from concord_common.project_dir import project_yaml
from concord_io.errors import ConcordError, printable
from concord_io.landing.names import canonical_language, check_name

#: Where the landed tables of the cross-lingual study are declared, once: the columns of the
#: source ``mcq_landing``, each with its Arrow type (``data_type``), whether it may be null
#: (``config.meta.nullable``) and what it means. The reader writes these schemas, the staging
#: models read them (the ``landing_columns`` macro) and docs/landing.md's tables are written
#: from them (``scripts/landing_docs.py``).
LANDING_DECLARATION = "models/staging/mcq/_mcq__sources.yml"
LANDING_SOURCES = declaration_file(LANDING_DECLARATION, ConcordError)
LANDING_SOURCE = "mcq_landing"

TABLES = declared_tables(LANDING_SOURCES, LANDING_SOURCE)
RUNS, ANSWERS, OPTION_SCORES, ITEMS, QUARANTINE = (
    TABLES[name] for name in ("runs", "answers", "option_scores", "items", "quarantine")
)
#: Where every landed record was read (the last columns of answers, items and the seeds).
PROVENANCE = tuple((f.name, f.type, f.nullable) for f in ANSWERS if f.name in
                   ("source_file", "source_row", "content_hash"))  # fmt: skip


def conform(name: str, table: pa.Table) -> pa.Table:
    """``table``'s columns in the schema's order and types; a null in a non-null column is a
    bug of the reader, not of the input (the input was refused before), so it raises."""
    schema = TABLES[name]
    columns = [table.column(f.name).cast(f.type) for f in schema]
    for f, column in zip(schema, columns, strict=True):
        if not f.nullable and column.null_count:
            raise RuntimeError(f"reader bug: {name}.{f.name} has {column.null_count} null(s)")
    return pa.Table.from_arrays(columns, schema=schema).combine_chunks()


#: The files that declare sources (one ``_<dir>__sources.yml`` per staging folder).
SOURCE_FILES = "models/**/_*__sources.yml"
#: A seed column's declared type (the source's ``data_type``) -> its landed Arrow type.
SEED_TYPES = {
    "string": pa.string(),
    "varchar": pa.string(),
    "text": pa.string(),
    "integer": pa.int32(),
    "int": pa.int32(),
    "bigint": pa.int64(),
}
#: A string column's declared format (``config.meta.format``) -> the rule each of its values
#: lands by, ``rule(value, where, column)``: the value canonical, or refused naming it.
SEED_FORMATS: dict[str, Callable[[str, str, str], str]] = {
    "language_tag": canonical_language,  # EN, eng -> en; en_US -> en-US; English refused
    "name": check_name,  # a task or variant as the answers name it (xcopa, fewshot-5)
}


@dataclass(frozen=True)
class Seed:
    """A declared seed file: its table's name, where it lies, its source and columns."""

    name: str
    path: Path
    relative: str  # from the project folder, as the landing's source_file gives it
    source: str
    #: declared column -> its data_type, in the declared order
    columns: dict[str, str]
    #: declared column -> its format (:data:`SEED_FORMATS`), for the columns that have one
    formats: dict[str, str] = field(default_factory=dict)
    #: the columns whose values no two lines share, none blank (empty: no key declared)
    primary_key: tuple[str, ...] = ()
    #: the columns a file may lack, read as empty (``config.meta.optional``: added in a
    #: release, their values may be empty, so an upgrade never stops a working project)
    optional: tuple[str, ...] = ()
    #: (from, to): each line maps a name to a name, applied once (``config.meta.maps``)
    maps: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """How every message names it."""
        return f"seed {self.name} ({self.relative})"

    def schema(self) -> pa.Schema:
        """The landed table's columns: the declared ones, then the file and row each record
        was read from and the file's content hash."""
        return pa.schema(
            [pa.field(name, SEED_TYPES[kind]) for name, kind in self.columns.items()]
            + [pa.field(name, kind, nullable=null) for name, kind, null in PROVENANCE]
        )


def _meta(node: dict) -> dict:
    meta = (node.get("config") or {}).get("meta")
    return meta if isinstance(meta, dict) else {}


def _table(project: Path, yml: str, source: dict, folder: str, table: dict) -> Seed:
    name = str(table.get("name") or "")
    where = f"{yml}: source {source.get('name')}, table {name}"
    columns, formats, optional = {}, {}, []
    for column in table.get("columns") or []:
        kind = str(column.get("data_type") or "").strip().lower()
        if kind not in SEED_TYPES:
            raise ConcordError(
                f"{where}, column {column.get('name')}: data_type {printable(kind or '(none)')}"
                f" is not one of {', '.join(SEED_TYPES)}",
                hint="declare each column of a seed file with one of these types",
            )
        columns[str(column["name"])] = kind
        value_format = _meta(column).get("format")
        if value_format is not None:
            if str(value_format) not in SEED_FORMATS or SEED_TYPES[kind] != pa.string():
                raise ConcordError(
                    f"{where}, column {column.get('name')}: format {printable(value_format)} is "
                    f"not one of {', '.join(SEED_FORMATS)} on a string column",
                    hint="declare a language tag's column format: language_tag, a task's "
                    "format: name, or no format",
                )
            formats[str(column["name"])] = str(value_format)
        if _meta(column).get("optional") is True:
            optional.append(str(column["name"]))
    if not columns:
        raise ConcordError(f"{where}: no columns declared", hint="declare every column")
    key = _meta(table).get("primary_key", [])
    if not (isinstance(key, list) and all(isinstance(c, str) and c in columns for c in key)):
        raise ConcordError(
            f"{where}: primary_key {printable(key)} is not a list of its declared columns",
            hint="name the columns whose values no two lines share, e.g. [task, language]",
        )
    maps = _meta(table).get("maps", [])
    if not (isinstance(maps, list) and len(maps) in (0, 2) and all(c in columns for c in maps)):
        raise ConcordError(
            f"{where}: maps {printable(maps)} is not two of its declared columns",
            hint="name the column of the names mapped and that of what they map to, e.g. "
            "[spelling, model]",
        )
    relative = f"{folder.rstrip('/')}/{name}.csv"
    return Seed(
        name, project / relative, relative, str(source["name"]), columns, formats, tuple(key),
        tuple(optional), tuple(maps),
    )  # fmt: skip


def declared_seeds(project: Path | str) -> list[Seed]:
    """Every seed file the sources of ``project`` declare, by table name."""
    project = Path(project)
    seeds: dict[str, Seed] = {}
    for path in sorted(project.glob(SOURCE_FILES)):
        yml = path.relative_to(project).as_posix()
        for source in project_yaml(path).get("sources") or []:
            folder = _meta(source).get("seed_folder")
            if not folder:
                continue
            for table in source.get("tables") or []:
                seed = _table(project, yml, source, str(folder), table)
                if seed.name in seeds:
                    raise ConcordError(
                        f"{yml}: seed table {seed.name} is declared twice "
                        f"({seeds[seed.name].relative} and {seed.relative})",
                        hint="give every seed file a name of its own",
                    )
                seeds[seed.name] = seed
    return sorted(seeds.values(), key=lambda seed: seed.name)


def seed_folders(seeds: list[Seed]) -> list[str]:
    """The folders the seeds lie in, each once, in order."""
    return sorted({seed.relative.rpartition("/")[0] for seed in seeds})


# ------------------------------------------------------------ the cross-lingual study

#: the study's registries and lists (seed files)
SEEDS = Path("seeds") / "mcq"


@dataclass(frozen=True)
class Study:
    root: Path
    answers_dir: Path
    items_dir: Path
    sources_dir: Path
    #: the languages the study compares, as the vars write them; empty: every language the
    #: answers hold
    languages: list[str]
    options: list[str]
    #: the task of answers that name none and of the item files (var mcq_default_task)
    task: str
    #: registry name -> its declared columns
    columns: dict[str, list[str]]
    #: registry name -> the declared columns its file may lack (read as empty)
    optional: dict[str, tuple[str, ...]]

    #: the same languages, canonical (made so once, when the study is loaded)
    compared: list[str]
    #: the project's vars (dbt_project.yml's, and over them a dbt call's), read once
    variables: dict

    @property
    def option_keys(self) -> str:
        """The keys a harness's choices get in the order it presents them: the declared
        options (var mcq_options), then the letters A to Z not among them. A task of a sample
        log may have 2 to 26 choices, whatever mcq_options holds (items and answer files
        name their options as mcq_options declares them)."""
        extra = [letter for letter in string.ascii_uppercase if letter not in self.options]
        return "".join([*self.options, *extra])

    def registry(self, name: str) -> Path:
        return self.root / SEEDS / f"{name}.csv"

    def relative(self, path: Path) -> str:
        """``path`` relative to the project where it lies inside it (as provenance)."""
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return path.resolve().as_posix()


@dataclass
class Line:
    """One registry line: its cells (surrounding blanks removed; '' when blank) and the
    files it names, relative to the registry's folder."""

    registry: str
    values: dict[str, str]
    paths: list[str] = field(default_factory=list)
    #: the folder ``paths`` are relative to: the registry's, or for a line registered in
    #: place (``folder``) the project's (the paths then name the folder too)
    base: Path | None = None

    def __getitem__(self, column: str) -> str:
        return self.values.get(column, "")

    @property
    def file(self) -> str:
        return self["file"]
