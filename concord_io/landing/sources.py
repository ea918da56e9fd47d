"""What every reader of an input file shares: the file's bytes and content hash, the row
numbers of its records, JSON lines, and the one-line refusal of the first bad record.

A file's content hash is computed in one pass over its bytes in chunks, when it is opened
(``load``): a file is never held whole for its hash. Readers of formats read whole (CSV,
JSON lines) take its bytes with :meth:`SourceFile.read_bytes`; the Parquet reader streams it
by record batches and checks with :meth:`SourceFile.check_unchanged` that it was not
rewritten meanwhile.

The strict CSV reader: a file is read exactly as declared or refused with one line.

A file is checked in memory, in this order: not empty, UTF-8, no NUL byte (a UTF-16 file),
the header (no blank or repeated name; declared or required columns), every record against
the header (one regular-expression pass: the first ragged row or stray quote is named with
its row and line), and, for data files, one kind of line ending. Only then is it parsed,
by Arrow's C++ reader from the same bytes, every cell as text (an empty cell is '', never
null): nothing is coerced, padded or guessed. A file without a quote skips the
regular-expression pass: Arrow's parser refuses a record of another width, and the pass then
runs only to name it (:func:`read_csv`).

The file's own bytes are parsed, never its name: a name with glob characters (``x[1].csv``)
is that file and no other."""

from __future__ import annotations

import difflib
import hashlib
import io
import os
import re
import stat
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from concord_common.sql import sql_literal
from concord_io.errors import ConcordError, printable

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


BOM = b"\xef\xbb\xbf"
QUOTED = r'"(?:[^"]|"")*"'
FIELD = rf'(?:{QUOTED}|[^,"\r\n]*)'
LINE_END = r"(?:\r\n|\n|\r)"
FIRST_RECORD = re.compile(r'(?:"(?:[^"]|"")*"|[^"\r\n])*')
HEADER_FIELD = re.compile(rf'({QUOTED}|[^,"]*)(?:,|$)')
ENDINGS = {"crlf": "CRLF (Windows)", "lf": "LF (Unix)", "cr": "CR (old Mac)"}
NOTHING_LOADED = "nothing of this file was landed"


@dataclass(frozen=True)
class CsvTable:
    """A checked CSV file: its header (names as written, surrounding blanks removed) and its
    records as text columns named by the header, in file order."""

    header: list[str]
    table: pa.Table


def text_of(data: bytes, label: str, empty: str = "the file is empty") -> str:
    """The file's text without a leading BOM; refused when empty, not UTF-8 or with NUL
    bytes. Shared by every text format (CSV, JSONL)."""
    if not data:
        raise ConcordError(
            f"{label}: {empty}",
            hint="add its header and rows, or remove the file and its registry line; "
            + NOTHING_LOADED,
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ConcordError(
            f"{label}: not UTF-8: the first byte that is not valid UTF-8 is on line {line}",
            hint="Save the file as UTF-8 (Latin-1 and UTF-16 files are refused, not guessed).",
        ) from None
    if "\0" in text:
        raise ConcordError(
            f"{label}: contains NUL bytes (a UTF-16 file?)", hint="Save the file as UTF-8."
        )
    # lstrip copies the text: only where there is a BOM to remove
    return text.lstrip("\ufeff") if text.startswith("\ufeff") else text


def _header(text: str) -> tuple[list[str], list[str]]:
    """The first record's names: as Arrow will name the columns (quotes undone) and as
    checked (also without surrounding blanks)."""
    first = FIRST_RECORD.match(text)
    header_text = first.group(0) if first else ""
    n_fields = re.sub(QUOTED, "", header_text).count(",") + 1
    raw = []
    for name in HEADER_FIELD.findall(header_text)[:n_fields]:
        stripped = name.strip()
        if len(stripped) > 1 and stripped.startswith('"') and stripped.endswith('"'):
            name = stripped[1:-1].replace('""', '"')
        raw.append(name)
    return raw, [name.strip() for name in raw]


def check_header(
    header: list[str],
    label: str,
    *,
    declared: list[str] | None = None,
    required: list[str] | None = None,
    what: str = "header row",
    optional: Collection[str] = (),
) -> None:
    """No blank or repeated name (case-insensitive); exactly the ``declared`` columns (in
    any order; those ``optional`` may be left out), or at least the ``required`` ones.
    ``what``: where the names are (a Parquet file's schema)."""
    where = f"{label}, {what}: "
    seen: list[str] = []
    for position, name in enumerate(header, start=1):
        if not name:
            raise ConcordError(
                where + f"column {position} has no name (empty or only spaces)",
                hint="Name every column.",
            )
        if name.lower() in seen:
            raise ConcordError(
                where + f"column {name} appears more than once "
                f"(columns {seen.index(name.lower()) + 1} and {position})",
                hint="Rename or drop one.",
            )
        seen.append(name.lower())
    if declared is not None:
        wanted = [name.lower() for name in declared]
        may_lack = {name.lower() for name in optional}
        missing = [name for name in wanted if name not in seen and name not in may_lack]
        undeclared = [name for name in seen if name not in wanted]
        if missing or undeclared:
            parts = []
            if missing:
                parts.append(f"declared column(s) {', '.join(missing)} missing from the header")
            if undeclared:
                parts.append(
                    f"header column(s) {', '.join(undeclared)} not declared in column_types"
                )
            raise ConcordError(
                where + "; ".join(parts) + f" (header: {', '.join(seen)}; "
                f"declared: {', '.join(wanted)})",
                hint="Rename the column in the file or declare it.",
            )
    missing = [name for name in required or [] if name not in header]
    if missing:
        raise ConcordError(
            where + f"missing column(s) {', '.join(missing)} (header: {', '.join(header)})",
            hint="add the column(s), or register the file with the right settings",
        )


def check_records(text: str, header: list[str], label: str) -> None:
    """Every record has the header's number of fields and no quote where none may be: the
    first that does not is named with its row (1 = first data row), line and column.
    Possessive repeats: one pass, no backtracking, whatever the file's size."""
    n_header = len(header)
    record = re.compile(FIELD + f"(?:,{FIELD}){{{n_header - 1}}}")
    good = re.match(rf"(?:(?:{record.pattern})?{LINE_END})*+", text)
    end = good.end() if good else 0
    rest = text[end:]
    if not rest or record.fullmatch(rest):
        return
    before = re.sub(QUOTED, "", text[:end])
    row = before.count("\n") + before.count("\r") - before.count("\r\n")
    line = text[:end].count("\n") + 1
    bad = re.match(FIELD + f"(?:,{FIELD})*", rest)
    bad_text = bad.group(0) if bad else ""
    n_fields = re.sub(QUOTED, "", bad_text).count(",") + 1
    next_char = rest[len(bad_text) : len(bad_text) + 1]
    where = f"{label}: row {row} (line {line})"
    if next_char and next_char not in "\r\n":
        # the fields stopped before the end of the line: a quote where none may be
        column = header[n_fields - 1] if n_fields <= n_header else "(beyond the last column)"
        problem = (
            "a quote inside an unquoted field"
            if next_char == '"'
            else "text after the closing quote of a quoted field"
        )
        raise ConcordError(
            f"{where}, column {column}: {problem}",
            hint='Quote the whole field and double the quotes inside it ("ab""c"); '
            + NOTHING_LOADED,
        )
    if n_fields < n_header:
        detail = f"first missing column: {header[n_fields]}"
    else:
        detail = f"extra field(s) beyond the last column {header[-1]}"
    raise ConcordError(
        f"{where} has {n_fields} fields, the header has {n_header}; {detail}",
        hint="fix the row; " + NOTHING_LOADED,
    )


def check_line_endings(text: str, label: str, *, quoted: bool = True) -> None:
    """Records that end in more than one way (CRLF, LF, CR) are refused, naming the first
    row that ends unlike the rows before it; line breaks inside quoted fields do not count
    (``quoted``: the text may hold quotes)."""
    if "\r" not in text:
        return  # every record ends with LF (or the file is one line)
    bare = re.sub(QUOTED, "", text) if quoted else text
    marked = bare.replace("\r\n", "\x1e\x1f")  # CRLF as two other characters: same positions
    firsts = {"crlf": marked.find("\x1e"), "lf": marked.find("\n"), "cr": marked.find("\r")}
    found = sorted((at, kind) for kind, at in firsts.items() if at >= 0)
    if len(found) < 2:
        return
    (_, first), (at, other) = found[0], found[1]
    row = len(re.findall("[\x1e\n\r]", marked[:at]))
    raise ConcordError(
        f"{label}: mixed line endings: row {row} ends with {ENDINGS[other]}, "
        f"the rows before it with {ENDINGS[first]}",
        hint="Save the file with one kind of line ending (e.g. dos2unix); " + NOTHING_LOADED,
    )


def _parsed(body: bytes, raw: list[str], quoted: bool, block_size: int | None = None) -> pa.Table:
    """``body`` parsed by Arrow, every column (``raw``: as Arrow names them) as text, an empty
    cell ''."""
    return pa_csv.read_csv(
        io.BytesIO(body),
        read_options=pa_csv.ReadOptions(block_size=block_size) if block_size else None,
        parse_options=pa_csv.ParseOptions(newlines_in_values=quoted),
        convert_options=pa_csv.ConvertOptions(
            column_types={name: pa.string() for name in raw},
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
    )


def _text(data: bytes, label: str) -> str:
    return text_of(data, label, "the file is empty (no header row)")


def _decoded_header(data: bytes, label: str) -> tuple[bytes, str | None, list[str], list[str]]:
    """The file's bytes without a BOM (Arrow parses them), its text where it was decoded
    (None: only the header was), and its header as written and as names. A file without a
    quote, CR or NUL has only its first line decoded here, and Arrow checks the rest is
    UTF-8 as it parses (decoding 1.4 GB of wide files took 3 s)."""
    body = data
    while body.startswith(BOM):
        body = body[len(BOM) :]
    if not body or b'"' in body or b"\r" in body or b"\0" in body:
        text = _text(data, label)
        return (body, text, *_header(text))
    end = body.find(b"\n")
    try:
        return (body, None, *_header((body[:end] if end >= 0 else body).decode("utf-8")))
    except UnicodeDecodeError:
        _text(data, label)  # refuses the file, naming the line
        raise


def read_csv(
    data: bytes,
    label: str,
    *,
    declared: list[str] | None = None,
    required: list[str] | None = None,
    one_line_ending: bool = True,
    allow_no_rows: bool = False,
    optional: Collection[str] = (),
) -> CsvTable:
    """``data`` (a CSV file's bytes, ``label`` naming it in every message) checked and
    parsed: its text, header and records (:func:`check_header`, :func:`check_records`).
    ``one_line_ending``: refuse
    mixed line endings (data files; a seed file, a registry among them, may mix them).
    ``allow_no_rows``: a header alone is a valid file (an empty registry). ``optional``:
    declared columns a file may lack (added in a release, their values may be empty), read
    as empty where it does (the header stays the file's).

    A file without a quote cannot hold a stray one, and each of its records is a line split
    at its commas: Arrow's parser, which refuses a record of another width, checks it, and
    the regular-expression pass runs only to name the record it refused (the same message);
    a file with quotes gets that pass first."""
    body, text, raw, header = _decoded_header(data, label)
    quoted = b'"' in body
    check_header(header, label, declared=declared, required=required, optional=optional)
    if quoted:
        assert text is not None  # decoded above: the file holds a quote
        check_records(text, header, label)
    if one_line_ending and text is not None:
        check_line_endings(text, label, quoted=quoted)
    try:
        table = _parsed(body, raw, quoted).rename_columns(header)
    except pa.ArrowInvalid as error:
        if "straddl" not in str(error):
            # the file refused as the checks name it: not UTF-8 (found by Arrow where the
            # text was not decoded), or the record Arrow refused
            check_records(_text(data, label) if text is None else text, header, label)
            raise
        # a record longer than Arrow's block (1 MiB): the file, already in memory, is
        # parsed as one block
        table = _parsed(body, raw, quoted, block_size=len(body) + 1).rename_columns(header)
    if table.num_rows == 0 and not allow_no_rows:
        raise ConcordError(
            f"{label}: the file has a header but no data rows",
            hint="Add its rows or remove the file and its registry line.",
        )
    lower = {name.lower() for name in header}
    for name in optional:
        if name.lower() not in lower:
            table = table.append_column(name, pa.repeat("", table.num_rows).cast(pa.string()))
    return CsvTable(header, table)


def with_domains(records: str) -> str:
    """SQL: a harness's ``records`` (with ``task``, ``item_id``, ``language`` and the
    sample's own ``sample_domain``) with ``domain_label`` and ``domain``, in the order read
    (``source_row``): the item files' where they hold the task's item in this language (the
    ``items`` relation), else the sample's label and its English name (the ``translations``
    relation: mcq_domain_translations), else the label as written (a harness's own subjects,
    written alike in every language). The engine checks that an item's languages agree."""
    return f"""
        select
            a.* exclude (sample_domain),
            coalesce(i.domain_label, a.sample_domain) as domain_label,
            coalesce(i.domain, t.domain_en, a.sample_domain) as domain
        from ({records}) as a
        left join (
            select task, item_id, language, any_value(domain_label) as domain_label,
                any_value(domain) as domain
            from items
            group by all
        ) as i using (task, item_id, language)
        left join translations as t
            on t.language = a.language and t.domain_label = a.sample_domain
        order by a.source_row
    """
