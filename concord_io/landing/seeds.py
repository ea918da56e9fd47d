"""The seed files (``seeds/<study>/*.csv``), read by the strict reader and landed as typed
Parquet: ``<landing>/seeds/seed=<name>/<name>.parquet`` (docs/landing.md).

Each file is one table of a dbt source (:mod:`concord_io.landing.schemas`): UTF-8, a
header of exactly its declared columns (any order: they land by name, in the declared
order), records of the header's width (:mod:`concord_io.landing.sources`); each value is
cast to its column's declared type (an empty cell is null; an integer in its one spelling),
a column declared with a format lands canonical (a language tag) or checked (a name), a
declared key is given once and never blank, and every row carries the file it came from
(``source_file``, from the project folder), its row (``source_row``, 1 = the first data row)
and the file's ``content_hash``. Every file is read before anything is
written: every refused file is named on its own line, with its row and column, and nothing
lands. A file lands again only when its bytes or its declaration change (the folder's
fingerprint), whole or not at all; the folder of a seed no longer declared is removed.

``concord land``, ``concord build`` and the dbt plugin (before ``dbt build`` and ``dbt
run``) land the seeds before the cross-lingual study's inputs (:func:`concord_io.landing.land`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from concord_io.errors import ConcordError, printable
from concord_io.landing.engine import fingerprint
from concord_io.landing.schemas import SEED_FORMATS, Seed, declared_seeds, seed_folders
from concord_io.landing.sources import NOTHING_LOADED, read_csv, read_regular

#: Bumped when the reader lands the same seed files differently: every seed lands again.
SEEDS_FORMAT = 2  # 2: an integer only as written canonically
AREA, KEY = "seeds", "seed"
#: A whole number has one spelling: digits alone, ``-`` for a negative (``0``, ``-7``,
#: ``42``). ``003``, `` 3 ``, ``+3`` and ``-0`` are refused, never read as the number they
#: might mean: two spellings of one key would collide after the landing, naming no row.
WHOLE_NUMBER = re.compile(r"0|-?[1-9][0-9]*")
SEED_NOT_LOADED = "no seed was loaded"


def _whole_numbers(text: pa.ChunkedArray, seed: Seed, column: str) -> pa.Array:
    """``text`` (nulls for empty cells) as the column's integer type; the first value that
    is not a canonical whole number (:data:`WHOLE_NUMBER`) in range is refused, naming its
    row and the value as written."""
    kind = seed.schema().field(column).type
    low, high = -(2 ** (kind.bit_width - 1)), 2 ** (kind.bit_width - 1) - 1
    values = []
    for row, value in enumerate(text.to_pylist(), start=1):  # a loop per row of a small file
        if value is not None and not (WHOLE_NUMBER.fullmatch(value) and low <= int(value) <= high):
            raise ConcordError(
                f"{seed.label}: row {row}, column {column}: {printable(repr(value))} is not a "
                f"canonical whole number from {low} to {high} ({seed.columns[column]})",
                hint="write it in digits alone, with - for a negative (0, -7, 42: no +, leading "
                "zero, blanks or -0), or leave the cell empty; " + NOTHING_LOADED,
            )
        values.append(None if value is None else int(value))
    return pa.array(values, kind)


def _formatted(text: pa.ChunkedArray, seed: Seed, column: str) -> pa.Array:
    """``text`` (nulls for empty cells) by its column's declared format
    (:data:`SEED_FORMATS`): each value canonical; the first that is not refused, naming its
    row."""
    rule = SEED_FORMATS[seed.formats[column]]
    values = text.to_pylist()
    landed: dict[str, str] = {}  # each distinct value once
    for row, value in enumerate(values, start=1):  # a loop per row of a small file
        if value is not None and value not in landed:
            try:
                landed[value] = rule(value, f"{seed.label}: row {row}", column)
            except ConcordError as error:
                raise ConcordError(error.message, hint=f"{error.hint}; {NOTHING_LOADED}") from None
    return pa.array([None if value is None else landed[value] for value in values], pa.string())


def _refuse_repeated_keys(seed: Seed, landed: dict[str, list], written: dict[str, list]) -> None:
    """The first line whose key (:attr:`Seed.primary_key`) is blank, or that of an earlier
    line once each value landed (``EN`` and ``en``), refused naming both rows and the values
    as written."""
    key = seed.primary_key
    first: dict[tuple, int] = {}
    for index, values in enumerate(zip(*(landed[column] for column in key), strict=True)):
        row = index + 1
        blank = next(
            (column for column, value in zip(key, values, strict=True) if value is None), None
        )
        if blank is not None:
            raise ConcordError(
                f"{seed.label}: row {row}, column {blank}: blank, and ({', '.join(key)}) is the "
                "file's key",
                hint=f"fill it in, or remove the line; {NOTHING_LOADED}",
            )
        earlier = first.setdefault(values, row)
        if earlier == row:
            continue
        both = ", ".join(
            f"{column} {printable(repr(value))}" for column, value in zip(key, values, strict=True)
        )
        differ = [c for c in key if written[c][earlier - 1] != written[c][row - 1]]
        as_written = "; ".join(
            f"row {r} " + ", ".join(f"{c} {printable(repr(written[c][r - 1]))}" for c in differ)
            for r in (earlier, row)
        )
        raise ConcordError(
            f"{seed.label}: rows {earlier} and {row} are both {both}"
            + (f" (as written: {as_written})" if differ else ""),
            hint=f"keep one line per {' and '.join(key)}; {NOTHING_LOADED}",
        )


def _refuse_chains(seed: Seed, sources: list, targets: list) -> None:
    """A mapping (:attr:`Seed.maps`) applied once: every line maps to a name (not blank),
    and no name it maps to is mapped on by another line (a chain would make the name depend
    on the order the lines are applied); refused naming the rows."""
    source, target = seed.maps
    row_of = {name: row for row, name in enumerate(sources, start=1)}
    for row, (name, mapped) in enumerate(zip(sources, targets, strict=True), start=1):
        if mapped is None:
            raise ConcordError(
                f"{seed.label}: row {row}, column {target}: blank (what {source} "
                f"{printable(repr(name))} maps to)",
                hint=f"fill it in, or remove the line; {NOTHING_LOADED}",
            )
        onward = row_of.get(mapped)
        if onward is not None and targets[onward - 1] != mapped:
            raise ConcordError(
                f"{seed.label}: row {row} maps {printable(repr(name))} to "
                f"{printable(repr(mapped))}, which row {onward} maps to "
                f"{printable(repr(targets[onward - 1]))}",
                hint=f"map {printable(repr(name))} to {printable(repr(targets[onward - 1]))} "
                f"directly; {NOTHING_LOADED}",
            )


def read_model_aliases(project: Path | str) -> dict[str, str]:
    """The model aliases (``seeds/models/model_aliases.csv``): spelling -> canonical name,
    read and checked as the file lands (none where the project declares no such seed)."""
    for seed in declared_seeds(Path(project)):
        if seed.name == "model_aliases" and seed.path.is_file():
            table = read_seed(seed, read_regular(seed.path, seed.label))
            columns = table.select(list(seed.maps)).to_pydict()
            return dict(zip(*columns.values(), strict=True))
    return {}


def read_seed(seed: Seed, data: bytes) -> pa.Table:
    """The seed file's bytes ``data`` as its landed table (:meth:`Seed.schema`): each value
    of its declared type, and format where one is declared, no key given twice; refused
    with one line naming the file, row and column."""
    checked = read_csv(
        data, seed.label, declared=list(seed.columns), one_line_ending=False, allow_no_rows=True,
        optional=seed.optional,
    )  # fmt: skip
    by_name = {name.lower(): name for name in checked.table.column_names}
    columns, written = [], {}
    for column in seed.columns:
        text = checked.table.column(by_name[column.lower()])
        text = pc.if_else(pc.equal(text, ""), pa.scalar(None, pa.string()), text)
        if column in seed.primary_key:
            written[column] = text.to_pylist()
        if column in seed.formats:
            columns.append(_formatted(text, seed, column))
        elif seed.schema().field(column).type == pa.string():
            columns.append(text)
        else:
            columns.append(_whole_numbers(text, seed, column))
    if seed.primary_key:
        landed = {c: columns[list(seed.columns).index(c)].to_pylist() for c in seed.primary_key}
        _refuse_repeated_keys(seed, landed, written)
    if seed.maps:
        _refuse_chains(seed, *(columns[list(seed.columns).index(c)].to_pylist()
                               for c in seed.maps))  # fmt: skip
    n_rows = checked.table.num_rows
    content_hash = hashlib.sha256(data).hexdigest()
    columns += [
        pa.repeat(seed.relative, n_rows),
        pa.array(range(1, n_rows + 1), pa.int64()),
        pa.repeat(content_hash, n_rows),
    ]
    return pa.Table.from_arrays(columns, schema=seed.schema()).combine_chunks()


def _fingerprint(seed: Seed, data: bytes) -> str:
    """What a seed's landed folder is made from: its bytes, where it lies, its columns and
    what they declare (types, formats, key)."""
    parts = [SEEDS_FORMAT, seed.relative, seed.columns]
    parts += [seed.formats, list(seed.primary_key), list(seed.maps)]
    return fingerprint(*parts, hashlib.sha256(data).hexdigest())


def _unlisted(project: Path, seeds: list[Seed]) -> list[str]:
    """The CSV files of the seed folders that no source declares."""
    declared = {seed.relative for seed in seeds}
    return [
        path.relative_to(project).as_posix()
        for folder in seed_folders(seeds)
        for path in sorted((project / folder).glob("*.csv"))
        if path.relative_to(project).as_posix() not in declared
    ]


def read_seeds(
    project: Path | str, landed: Callable[[Seed, str], bool] = lambda seed, fingerprint: False
) -> dict[str, tuple[Seed, pa.Table | None, str]]:
    """Every declared seed file of ``project`` read (nothing written): by name, its
    declaration, its table and its fingerprint; the table is None for a file ``landed``
    already holds with that fingerprint (an unchanged file is hashed, not parsed: it was
    checked when it landed, by a reader of the same version). Raises one
    :class:`ConcordError` whose message names every refused file, one line each."""
    project = Path(project)
    seeds = declared_seeds(project)
    problems = [
        f"seed {Path(relative).stem} ({relative}): no source table declares it. Declare it "
        "(a table of the folder's source, with its columns' data_type) or remove the file"
        for relative in _unlisted(project, seeds)
    ]
    tables: dict[str, tuple[Seed, pa.Table | None, str]] = {}
    for seed in seeds:
        try:
            if not seed.path.exists():
                raise ConcordError(
                    f"{seed.label}: file not found (declared in source {seed.source})",
                    hint="put the file there, or remove its table from the source",
                )
            data = read_regular(seed.path, seed.label)
            fingerprint = _fingerprint(seed, data)
            table = None if landed(seed, fingerprint) else read_seed(seed, data)
            tables[seed.name] = (seed, table, fingerprint)
        except ConcordError as error:
            hint = (error.hint or "").replace(NOTHING_LOADED, SEED_NOT_LOADED)
            problems.append(f"{error.message}. {hint}".rstrip(". "))
    if problems:
        raise ConcordError(
            "\n".join(problems), hint=f"fix the {len(problems)} seed file(s) named above"
        )
    return tables
