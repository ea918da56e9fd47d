"""Refuse non-UTF-8 seed files before dbt parses the project.

dbt reads every seed file as UTF-8 while it parses the project (to hash it), before any of
the project's own code runs, and stops on a Latin-1 or UTF-16 seed with a Python traceback.
Everything else about a seed is checked by the project's strict CSV reader
(``macros/strict_csv.sql``) inside dbt; this is the one check that must come first, so
``make build`` runs it ahead of ``dbt build``. It says the same thing the reader says about
the answer and item files (which dbt does not parse: ``.dbtignore``).

    python -m concord_io.input_encoding [folder ...]   # default: seeds
"""

from __future__ import annotations

import argparse
from pathlib import Path

from concord_io.errors import ConcordError, run_main
from concord_io.paths import PROJECT_ROOT


def first_bad_line(data: bytes) -> int | None:
    """The 1-based line of the first byte that is not valid UTF-8, or None; a NUL byte (a
    UTF-16 file without its byte order mark is mostly valid UTF-8) counts as bad."""
    offsets = [data.find(b"\0")]
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        offsets.append(error.start)
    offsets = [offset for offset in offsets if offset >= 0]
    return data[: min(offsets)].count(b"\n") + 1 if offsets else None


def check_folder(folder: Path) -> None:
    """Raise :class:`ConcordError` naming the first CSV file under ``folder`` that is not
    UTF-8, and the line of its first bad byte."""
    for path in sorted(folder.rglob("*.csv")):
        line = first_bad_line(path.read_bytes())
        if line is not None:
            raise ConcordError(
                f"{path}: not UTF-8: the first byte that is not valid UTF-8 is on line {line}.",
                hint="Save the file as UTF-8 (Latin-1 and UTF-16 files are refused, not guessed).",
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[PROJECT_ROOT / "seeds"])
    for folder in parser.parse_args(argv).folders:
        check_folder(folder)
    return 0


if __name__ == "__main__":
    run_main(main)
