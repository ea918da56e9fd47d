"""Strict CSV reading: every cell as text, with the row position that is the item key.

Input files have no id column: the position of a data row (1 = first row after the header)
is the key. pyarrow reads fast and keeps file order; when it refuses a file, the slow path
re-reads it with the csv module only to say which row and column are wrong.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

SOURCE_ROW = "source_row"


class InputFileError(ValueError):
    """A file that cannot be read as declared; the message names the file, row and column."""


def _header(path: Path) -> list[str]:
    with path.open("r", encoding="utf-8-sig", newline="") as handle:
        try:
            return next(csv.reader(handle))
        except StopIteration:
            raise InputFileError(f"{path.name}: the file is empty (no header row)") from None
        except UnicodeDecodeError as exc:
            raise InputFileError(f"{path.name}: not valid UTF-8 ({exc.reason})") from None


def _locate_error(path: Path, n_columns: int) -> str:
    """Find the first row the strict reader would refuse and describe it."""
    with path.open("r", encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle, strict=True)
        try:
            next(reader)
            for row_number, row in enumerate(reader, start=1):
                if len(row) != n_columns:
                    return (
                        f"{path.name}: row {row_number} (line {reader.line_num}) has "
                        f"{len(row)} fields, the header has {n_columns}"
                    )
        except UnicodeDecodeError as exc:
            return f"{path.name}: not valid UTF-8 ({exc.reason})"
        except csv.Error as exc:
            return f"{path.name}: line {reader.line_num}: {exc}"
    return f"{path.name}: unreadable CSV"


def check_header(path: Path, required_columns: list[str] | None) -> list[str]:
    if not path.is_file():
        raise InputFileError(f"{path}: file not found")
    header = _header(path)
    blank = [i + 1 for i, name in enumerate(header) if not name.strip()]
    if blank:
        raise InputFileError(f"{path.name}: header column {blank[0]} has no name")
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:
        raise InputFileError(f"{path.name}: header repeats column(s) {', '.join(repeated)}")
    missing = [c for c in (required_columns or []) if c not in header]
    if missing:
        raise InputFileError(
            f"{path.name}: missing column(s) {', '.join(missing)} (header: {', '.join(header)})"
        )
    return header


def iter_csv_batches(
    path: str | Path, columns: dict[str, str] | None = None
) -> Iterator[pa.RecordBatch]:
    """Stream a CSV with a header as Arrow record batches of strings, ``source_row`` first.

    ``columns`` maps the file's column names to output names (all columns, unrenamed, when
    None); every one must be in the header. One block of the file is held at a time.
    UTF-8 with or without BOM; LF, CRLF or CR line endings; quoted fields may hold commas,
    quotes and newlines. Nothing is coerced: an empty cell stays ''. Refused, with a
    message that names the file (and the row or column): a missing or empty file, a header
    with a blank or repeated name, a row with more or fewer fields than the header, invalid
    UTF-8, a missing column, a file with no data rows.
    """
    path = Path(path)
    header = check_header(path, list(columns) if columns else None)
    columns = columns or {name: name for name in header}
    schema = pa.schema(
        [(SOURCE_ROW, pa.int64()), *((out, pa.string()) for out in columns.values())]
    )
    try:
        # the header was read above (BOM and all): name the columns and skip that line
        reader = pacsv.open_csv(
            path,
            read_options=pacsv.ReadOptions(
                encoding="utf8", column_names=header, skip_rows=1, block_size=1 << 24
            ),
            parse_options=pacsv.ParseOptions(newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(
                column_types={name: pa.string() for name in header},
                include_columns=list(columns),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
        first_row = 1
        for batch in reader:
            rows = pa.array(np.arange(first_row, first_row + batch.num_rows, dtype=np.int64))
            yield pa.RecordBatch.from_arrays([rows, *batch.columns], schema=schema)
            first_row += batch.num_rows
    except (pa.ArrowInvalid, UnicodeDecodeError):
        raise InputFileError(_locate_error(path, len(header))) from None
    if first_row == 1:
        raise InputFileError(f"{path.name}: the file has a header but no data rows")


def read_csv_table(path: str | Path, columns: dict[str, str] | None = None) -> pa.Table:
    """:func:`iter_csv_batches` gathered into one Arrow table."""
    batches = list(iter_csv_batches(path, columns))
    return pa.Table.from_batches(batches)
