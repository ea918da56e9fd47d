"""The strict CSV reader: a file is read exactly as declared or refused with one line.

A file is checked in memory, in this order: not empty, UTF-8, no NUL byte (a UTF-16 file),
the header (no blank or repeated name; declared or required columns), every record against
the header (one regular-expression pass: the first ragged row or stray quote is named with
its row and line), and, for data files, one kind of line ending. Only then is it parsed,
by Arrow's C++ reader from the same bytes, every cell as text (an empty cell is '', never
null): nothing is coerced, padded or guessed. A file without a quote skips the
regular-expression pass: Arrow's parser refuses a record of another width, and the pass then
runs only to name it (:func:`read_csv`).

The file's own bytes are parsed, never its name: a name with glob characters (``x[1].csv``)
is that file and no other.
"""

from __future__ import annotations

import io
import re
from collections.abc import Collection
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.csv as pa_csv

from concord_io.errors import ConcordError

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


def check_csv(
    data: bytes,
    label: str,
    *,
    declared: list[str] | None = None,
    required: list[str] | None = None,
    one_line_ending: bool = False,
) -> tuple[str, list[str], list[str]]:
    """``data`` (a CSV file's bytes) checked, not parsed: its text, its header as Arrow will
    name the columns and as checked. ``label`` names the file in every message."""
    text = text_of(data, label, "the file is empty (no header row)")
    raw, header = _header(text)
    check_header(header, label, declared=declared, required=required)
    check_records(text, header, label)
    if one_line_ending:
        check_line_endings(text, label)
    return text, raw, header


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
    """``data`` checked (as :func:`check_csv` does) and parsed. ``one_line_ending``: refuse
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
