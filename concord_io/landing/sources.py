"""What every reader of an input file shares: the file's bytes and content hash, the row
numbers of its records, JSON lines, and the one-line refusal of the first bad record.

A file's content hash is computed in one pass over its bytes in chunks, when it is opened
(``load``): a file is never held whole for its hash. Readers of formats read whole (CSV,
JSON lines) take its bytes with :meth:`SourceFile.read_bytes`; the Parquet reader streams it
by record batches and checks with :meth:`SourceFile.check_unchanged` that it was not
rewritten meanwhile."""

from __future__ import annotations

import difflib
import hashlib
import os
import stat
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from concord_common.sql import sql_literal
from concord_io.errors import ConcordError, printable
from concord_io.landing.strict_csv import text_of

#: Bytes read at a time to hash a file: its memory does not grow with the file.
HASH_CHUNK = 4 << 20
NOT_AN_OBJECT = "not a JSON object"
UNKNOWN_DOMAIN_HINT = "add it to seeds/mcq/mcq_domain_translations.csv"


def _stamp(stat: os.stat_result) -> tuple[int, int, int, int]:
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)


def _unreadable(name: str, error: OSError) -> ConcordError:
    return ConcordError(
        f"{printable(name)}: cannot be read ({error.strerror})",
        hint="check the file and its permissions",
    )


def _changed(name: str) -> ConcordError:
    return ConcordError(
        f"{printable(name)}: the file changed while it was read",
        hint="land again once whatever writes the file has finished",
    )


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(path: Path, name: str) -> BinaryIO:
    """``path`` opened for reading, only if it is a regular file (a link is followed to what
    it names): a FIFO would hang the reader, a device (``/dev/zero``) would never end and a
    folder is no file, so each is refused in one line naming ``name``, before a byte is
    read. Opened without blocking, so opening a FIFO returns at once."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except IsADirectoryError:
        raise _not_regular(name, stat.S_IFDIR) from None
    except OSError as error:
        raise _unreadable(name, error) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise _not_regular(name, mode)
    os.set_blocking(fd, True)
    return open(fd, "rb")  # noqa: SIM115 - the caller closes it (a with block)


def _not_regular(name: str, mode: int) -> ConcordError:
    return ConcordError(
        f"{printable(name)}: is {_kind(mode)}, not a regular file; nothing was read",
        hint="register a regular file (a link to one is fine)",
    )


def read_regular(path: Path, name: str) -> bytes:
    """The bytes of ``path``, a regular file (:func:`open_regular`)."""
    with open_regular(path, name) as handle:
        try:
            return handle.read()
        except OSError as error:
            raise _unreadable(name, error) from None


@dataclass(frozen=True)
class SourceFile:
    """An input file, hashed once when opened (``content_hash``: sha256 of its bytes):
    ``name`` is how messages and ``source_file`` name it (its path relative to its registry's
    folder). ``stamp`` is the file's identity, size and modification time when it was
    hashed."""

    path: Path
    name: str
    content_hash: str
    stamp: tuple[int, int, int, int]

    @property
    def suffix(self) -> str:
        return self.path.suffix.lower()

    def read_bytes(self) -> bytes:
        """The file's bytes, for the formats read whole; refused when they are not the
        bytes that were hashed."""
        data = read_regular(self.path, self.name)
        if hashlib.sha256(data).hexdigest() != self.content_hash:
            raise _changed(self.name)
        return data

    def check_unchanged(self) -> None:
        """Refuse a file streamed after it was hashed whose identity, size or modification
        time changed meanwhile (its records may not be the bytes hashed)."""
        try:
            stamp = _stamp(self.path.stat())
        except OSError as error:
            raise _unreadable(self.name, error) from None
        if stamp != self.stamp:
            raise _changed(self.name)


def load(directory: Path, name: str) -> SourceFile:
    """The file ``name`` of ``directory``, hashed in chunks of :data:`HASH_CHUNK` bytes."""
    path = directory / name
    digest = hashlib.sha256()
    with open_regular(path, name) as handle:
        try:
            stamp = _stamp(os.fstat(handle.fileno()))
            while chunk := handle.read(HASH_CHUNK):
                digest.update(chunk)
        except OSError as error:
            raise _unreadable(name, error) from None
    return SourceFile(path, name, digest.hexdigest(), stamp)


def with_rows(table: pa.Table) -> pa.Table:
    """``table`` with ``source_row``: 1 = its first record."""
    return table.append_column(
        "source_row", pa.array(np.arange(1, table.num_rows + 1, dtype=np.int64))
    )


def json_lines(source: SourceFile) -> pa.Table:
    """One row per line that is not blank: ``source_row`` (the line number) and ``line``.
    Lines end at LF (a CR before it is dropped): JSON strings may hold other separators."""
    text = text_of(source.read_bytes(), source.name)
    lines = pc.utf8_rtrim(pa.array(text.split("\n")), characters="\r")
    table = with_rows(pa.table({"line": lines}))
    result = table.filter(pc.not_equal(pc.utf8_trim(lines, characters=" \t"), ""))
    if result.num_rows == 0:
        raise ConcordError(
            f"{source.name}: the file has no records (only blank lines)",
            hint="Add its rows or remove the file and its registry line.",
        )
    return result


def first_row(con: duckdb.DuckDBPyConnection, sql: str) -> tuple | None:
    """The first row of ``sql``, or None; every row is fetched (DuckDB keeps a result open
    until then, and the connection is busy)."""
    rows = con.execute(sql).fetchall()
    return rows[0] if rows else None


@dataclass(frozen=True)
class Check:
    """A record-level rule, in SQL: a condition true for a bad record, the column at fault
    and the problem (text expressions: they may show the record's values), and a hint."""

    condition: str
    column: str
    problem: str
    hint: str


def refusal(check: Check, file: str, unit: str, row: int, column: str, problem: str):
    """The one-line refusal of record ``row`` of ``file`` by ``check``."""
    where = f"{printable(file)}: {unit} {row}, column {printable(column)}"
    return ConcordError(f"{where}: {printable(problem)}", hint=check.hint)


def refuse_first(
    con: duckdb.DuckDBPyConnection,
    relation: str,
    checks: Sequence[Check],
    file: str,
    unit: str = "row",
) -> None:
    """Raise for the first record of ``relation`` (by ``source_row``) that breaks a check, in
    the order of ``checks``: one line naming the file, row, column and problem."""
    for check in checks:
        found = first_row(
            con,
            f"select source_row, {check.column}, {check.problem} from {relation} "
            f"where {check.condition} order by source_row limit 1",
        )
        if found:
            raise refusal(check, file, unit, *found)


def gold_check(options: Sequence[str], column: str, hint: str) -> Check:
    """A gold (column ``gold`` of the relation checked) that is not one of the study's
    option keys: a record's gold is its item's own key, exactly."""
    return Check(
        f"gold not in ({', '.join(sql_literal(option) for option in options)})",
        sql_literal(column),
        "'gold ''' || gold || " + sql_literal(f"' is not one of the options {', '.join(options)}"),
        hint,
    )


def refuse_json_shape(
    con: duckdb.DuckDBPyConnection, relation: str, file: str, parents: tuple[str, ...]
) -> None:
    """Every line of ``relation`` (``source_row``, ``line``) is a JSON object whose keys,
    and those of the objects at the paths ``parents`` (``$.doc``), are each given once:
    the value of a key given twice would depend on the parser."""
    checks = [
        Check(
            "not coalesce(json_valid(line), false) or json_type(line) <> 'OBJECT'",
            "'(the line)'",
            sql_literal(NOT_AN_OBJECT),
            "write one JSON object per line",
        )
    ]
    for path in ("$", *parents):
        keys = f"json_keys(line, {sql_literal(path)})"
        checks.append(
            Check(
                f"len({keys}) <> len(list_distinct({keys}))",
                "'(the line)'",
                f"'key ' || list_filter({keys}, "
                f"lambda k: len(list_filter({keys}, lambda j: j = k)) > 1)[1]"
                " || ' appears more than once in the JSON object' || "
                f"{sql_literal('' if path == '$' else ' at ' + path)}",
                "give each key once (which of two values counts is not defined)",
            )
        )
    refuse_first(con, relation, checks, file, unit="line")


def refuse_unknown_domains(con: duckdb.DuckDBPyConnection, relation: str, file: str) -> None:
    """``relation`` (``source_row``, ``language``, ``domain_label``, ``domain_column``,
    ``answer_column``) against the registered translations: the first label with no English
    name is refused."""
    found = first_row(
        con,
        f"""
        select r.source_row, r.domain_column, r.answer_column, r.domain_label, r.language
        from {relation} as r
        left join translations as t
            on t.language = r.language and t.domain_label = r.domain_label
        where t.domain_en is null
        order by r.source_row, r.domain_column
        limit 1
        """,
    )
    if found:
        row, column, answer_column, label, language = found
        answers = f" (answer column {answer_column})" if answer_column else ""
        registered = [
            text for (text,) in con.execute(
                "select domain_label from translations where language = ?", [language]
            ).fetchall()
        ]  # fmt: skip
        near = difflib.get_close_matches(label or "", registered, n=1, cutoff=0.8)
        if near:
            # a look-alike character (Arabic yeh for Persian yeh) is shown, not guessed
            raise ConcordError(
                f"{printable(file)}: Unknown domain label: source_row={row}, column "
                f"{column}{answers}, value {printable(repr(label))} is not the registered "
                f"{printable(repr(near[0]))}: {_differences(label, near[0])}",
                hint="write the registered label (or, if it is another domain, "
                f"{UNKNOWN_DOMAIN_HINT})",
            )
        raise ConcordError(
            f"{printable(file)}: Unknown domain label ({UNKNOWN_DOMAIN_HINT}): "
            f"source_row={row}, column {column}{answers}, value {printable(repr(label))}",
            hint=f"{UNKNOWN_DOMAIN_HINT}, or correct the label",
        )


def _differences(text: str, registered: str) -> str:
    """Where ``text`` differs from ``registered``, character by character, with each
    character's code point and Unicode name."""

    def named(part: str) -> str:
        return (
            " ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'UNNAMED')}" for c in part) or "nothing"
        )

    parts = []
    opcodes = difflib.SequenceMatcher(a=text, b=registered, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in opcodes:
        if tag != "equal":
            parts.append(f"character {i1 + 1} is {named(text[i1:i2])} where the registered "
                         f"label has {named(registered[j1:j2])}")  # fmt: skip
    return "; ".join(parts)
