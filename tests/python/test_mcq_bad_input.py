"""Bad input for the cross-lingual study through the real build on a copy of the project: it
either stops with a message naming file, row and column, or quarantines the bad records
while every valid record is still counted.

The reader (concord_io.landing) reads every input before dbt opens the database: plain
``dbt build`` runs it through the project's dbt plugin, and a refusal is dbt's one-line
error. Every case of FAILURES is refused by the reader with its message in
tests/python/test_landing_reader.py (fast, no dbt); one case of each kind goes through
``dbt build`` here (THROUGH_DBT)."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from concord_io.project import run_dbt

GPT4O = "GPT4o_Merged_Multilingual.csv"


def answers_dir(project: Path) -> Path:
    return project / "seeds" / "mcq" / "answers"


def read_rows(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f))


def write_rows(path: Path, rows: list[list[str]], *, bom=True, newline="\n") -> None:
    with path.open("w", encoding="utf-8-sig" if bom else "utf-8", newline="") as f:
        csv.writer(f, lineterminator=newline).writerows(rows)


def set_cell(project: Path, file: str, row: int, column: str, value: str) -> None:
    path = answers_dir(project) / file
    rows = read_rows(path)
    rows[row][rows[0].index(column)] = value
    write_rows(path, rows)


def unregistered_file(p: Path):
    (answers_dir(p) / "Extra_Model.csv").write_bytes((answers_dir(p) / GPT4O).read_bytes())


def registered_file_missing(p: Path):
    (answers_dir(p) / GPT4O).unlink()


def duplicate_registry_line(p: Path):
    registry = p / "seeds" / "mcq" / "mcq_answer_registry.csv"
    lines = registry.read_text().splitlines()
    registry.write_text("\n".join([*lines, lines[1]]) + "\n")


def misaligned_row(p: Path):
    set_cell(p, GPT4O, 7, "Domain_IT", "Arte e Cultura")  # row 7 is Education


def unknown_domain(p: Path):
    set_cell(p, GPT4O, 3, "Domain_FA", "نامعلوم")


def ragged_row(p: Path):
    path = answers_dir(p) / GPT4O
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    lines[12] = lines[12].rsplit(",", 1)[0]  # drop the last field of data row 12
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def language_column_missing(p: Path):
    path = answers_dir(p) / GPT4O
    rows = read_rows(path)
    drop = rows[0].index("GPT4o_FA")
    write_rows(path, [r[:drop] + r[drop + 1 :] for r in rows])


def empty_file(p: Path):
    (answers_dir(p) / GPT4O).write_bytes(b"")


def header_only(p: Path):
    path = answers_dir(p) / GPT4O
    path.write_text(path.read_text(encoding="utf-8-sig").splitlines()[0] + "\n")


def not_a_permutation_order(p: Path):
    registry = p / "seeds" / "mcq" / "mcq_answer_registry.csv"
    registry.write_text(registry.read_text().replace("shuffled,DCBA", "shuffled,DCBB", 1))


def latin1_file(p: Path):
    path = answers_dir(p) / GPT4O
    path.write_bytes(path.read_text(encoding="utf-8-sig").encode("latin-1", errors="replace"))


def utf16_file(p: Path):
    path = answers_dir(p) / GPT4O
    path.write_bytes(path.read_text(encoding="utf-8-sig").encode("utf-16"))


def header_repeats_column(p: Path):
    path = answers_dir(p) / GPT4O
    rows = read_rows(path)
    rows[0][rows[0].index("Prompt_IT")] = "Domain_IT"
    write_rows(path, rows)


def absolute_path_in_registry(p: Path):
    registry = p / "seeds" / "mcq" / "mcq_answer_registry.csv"
    absolute = str((answers_dir(p) / GPT4O).resolve())
    registry.write_text(registry.read_text().replace(GPT4O, absolute, 1))


def stray_quote_after_quoted_field(p: Path):
    path = answers_dir(p) / GPT4O
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    # data row 4: its last answer quoted, with text after the closing quote
    lines[4] = lines[4].rsplit(",", 1)[0] + ',"A"x'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def mixed_line_endings(p: Path):
    path = answers_dir(p) / GPT4O
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    # CRLF after the header and the first 8 data rows, LF after the rest: row 9 is the first
    # that ends unlike the header
    text = "\r\n".join(lines[:10]) + "\n" + "\n".join(lines[10:]) + "\n"
    path.write_bytes(text.encode("utf-8"))


FAILURES: dict[str, tuple[Callable[[Path], None], list[str]]] = {
    "file with no registry line": (unregistered_file, ["Extra_Model.csv", "no line in"]),
    "registered file that does not exist": (registered_file_missing, [GPT4O, "not found"]),
    "duplicate registry lines": (duplicate_registry_line, [GPT4O, "more than once"]),
    "rows misaligned across languages": (
        misaligned_row,
        ["Misaligned", GPT4O, "source_row=7", "it=Arts & Culture"],
    ),
    "unknown domain label": (unknown_domain, ["Unknown domain", GPT4O, "source_row=3", "GPT4o_FA"]),
    "ragged row": (ragged_row, [GPT4O, "row 12", "fields"]),
    "a language column missing": (language_column_missing, [GPT4O, "GPT4o_FA"]),
    "empty file": (empty_file, [GPT4O, "empty"]),
    "header but no rows": (header_only, [GPT4O, "no data rows"]),
    "presented order not a permutation": (not_a_permutation_order, ["DCBB", "permutation"]),
    # the strict reader (issues 11, 13): encodings, header names, registry paths, quoting
    "Latin-1 file": (latin1_file, [GPT4O, "not UTF-8", "is on line 2"]),
    "UTF-16 file": (utf16_file, [GPT4O, "not UTF-8", "is on line 1"]),
    "header repeats a column": (
        header_repeats_column,
        [GPT4O, "header row", "column Domain_IT appears more than once", "columns 3 and 6"],
    ),
    "absolute path in the registry": (
        absolute_path_in_registry,
        ["mcq_answer_registry", "is a path", "bare file names"],
    ),
    "mixed line endings": (
        mixed_line_endings,
        [GPT4O, "mixed line endings", "row 9 ends with LF (Unix)", "CRLF (Windows)"],
    ),
    "text after a closing quote": (
        stray_quote_after_quoted_field,
        [GPT4O, "row 4", "text after the closing quote"],
    ),
}


# one case of each kind of refusal, through `dbt build` (the plugin's one-line error): a
# registry, the bytes, the CSV records, the header, and the items of a wide row
THROUGH_DBT = [
    "file with no registry line",
    "Latin-1 file",
    "ragged row",
    "a language column missing",
    "rows misaligned across languages",
]


@pytest.mark.parametrize("case", THROUGH_DBT)
def test_bad_input_stops_the_build_naming_file_row_and_column(case, project_copy):
    mutate, expected = FAILURES[case]
    mutate(project_copy)
    result = run_dbt(
        ["build", "--select", "+int_mcq_answers_normalised"],
        project_copy,
        project_copy / "concord.duckdb",
        check=False,
    )
    assert result.returncode != 0, f"{case}: the build should have failed"
    for text in expected:
        assert text in result.stdout, f"{case}: {text!r} not in the error:\n{result.stdout[-3000:]}"
    # refused before dbt opened the database: nothing was landed, no model ran
    assert not (project_copy / "landing" / "mcq").exists()
    assert "START sql" not in result.stdout


MESSY = {  # data row -> (raw answer in GPT4o_FA, expected letter or None, reason)
    1: ("Invalid", None, "pipeline_error"),
    2: ("Error", None, "pipeline_error"),
    3: ("Failed after 3 retries", None, "pipeline_error"),
    4: ("", None, "empty"),
    5: ("E", None, "letter_out_of_range"),
    6: ("b", "B", None),
    7: ("  C  ", "C", None),
    8: ("Answer: B", "B", None),
    9: ("**D**", "D", None),
    10: ("A)", "A", None),
}


def test_messy_answers_are_normalised_or_quarantined_and_reconciled(project_copy):
    path = answers_dir(project_copy) / GPT4O
    rows = read_rows(path)
    header = rows[0]
    for row, (raw, _, _) in MESSY.items():
        rows[row][header.index("GPT4o_FA")] = raw
    rows[11][header.index("GPT4o_EN")] = " " + rows[11][header.index("B_EN")].lower() + " "
    write_rows(path, rows, bom=False, newline="\r\n")  # also: no BOM, CRLF endings
    database = project_copy / "concord.duckdb"
    run_dbt(
        [
            "build",
            "--select",
            "+dq_quarantine",
            "+mcq_agreement_summary.v2",
            "+mcq_option_frequency.v2",
        ],
        project_copy,
        database,
    )
    with duckdb.connect(str(database), read_only=True) as con:
        got = dict(
            con.execute(
                "select cast(item_id as int), chosen_option "
                "from intermediate.int_mcq_answers_normalised "
                "where model = 'GPT-4o' and variant = 'base' and language = 'fa'"
            ).fetchall()
        )
        quarantined = con.execute(
            "select source_row, column_name, value, reason from marts.dq_quarantine "
            "where source = ? order by source_row",
            [GPT4O],
        ).fetchall()
        (en_11,) = con.execute(
            "select chosen_option from intermediate.int_mcq_answers_normalised "
            "where model = 'GPT-4o' and variant = 'base' and language = 'en' and item_id = '11'"
        ).fetchone()
        n_items, n_incomplete = con.execute(
            "select n_items, n_incomplete from marts.mcq_agreement_summary_v2 "
            "where model = 'GPT-4o' and variant = 'base'"
        ).fetchone()
        (n_valid_fa,) = con.execute(
            "select n_valid from marts.mcq_option_frequency_v2 where model = 'GPT-4o' "
            "and variant = 'base' and language = 'fa' and option = 'A'"
        ).fetchone()
    for row, (_, letter, _) in MESSY.items():
        assert got[row] == letter
    assert en_11 == "B"  # the option's own text, any case and padding
    assert quarantined == [
        (row, "GPT4o_FA", raw, f"mcq answer {reason}")
        for row, (raw, letter, reason) in MESSY.items()
        if letter is None
    ]
    # reconciled: 60 Persian answers in = counted + quarantined
    assert n_valid_fa + len(quarantined) == 60
    assert n_items == 60 and n_incomplete == len(quarantined)


def test_a_file_changed_to_bad_input_stops_every_build_until_it_is_fixed(project_copy):
    """A file changed to a misaligned row stops the next build, and the one after it
    (nothing of the refused file landed: the landing keeps the run as it was), until the
    file is fixed; then the build lands it again."""
    database = project_copy / "concord.duckdb"
    build = ["build", "--select", "+int_mcq_answers_normalised"]
    run_dbt(build, project_copy, database)
    original = (answers_dir(project_copy) / GPT4O).read_bytes()
    misaligned_row(project_copy)
    for _ in range(2):
        result = run_dbt(build, project_copy, database, check=False)
        assert result.returncode != 0
        for text in ["Misaligned", GPT4O, "source_row=7", "it=Arts & Culture"]:
            assert text in result.stdout, result.stdout[-3000:]
        assert "concord landing (" not in result.stdout  # the reader refused: nothing landed
    (answers_dir(project_copy) / GPT4O).write_bytes(original)
    result = run_dbt(build, project_copy, database)
    assert "23 folder(s) unchanged, 0 written or removed" in result.stdout
