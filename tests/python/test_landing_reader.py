"""The cross-lingual input reader (concord_io.landing): every check and every closed hole, on
bytes written to a throw-away project of two items and two languages (no dbt), and a round
trip on the shipped seeds against answers computed independently of the reader."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_mcq_bad_input import FAILURES as MCQ_FAILURES

from concord_io.errors import ConcordError
from concord_io.landing import land_mcq
from concord_io.landing.mcq import DUPLICATE, OTHER_LANGUAGE
from concord_io.project import PROJECT_ROOT

SEEDS = PROJECT_ROOT / "seeds" / "mcq"
HEADER = "Domain_EN,Domain_IT,A_EN,B_EN,C_EN,D_EN,A_IT,B_IT,C_IT,D_IT,P_EN,P_IT"
WIDE_ROWS = [
    "Health,Salute,Kind,Calm,Bold,Shy,Gentile,Calmo,Audace,Timido,B,A",
    "Art,Arte,Red,Blue,Green,Gray,Rosso,Blu,Verde,Grigio,C,D",
]
ITEMS = {
    "en.csv": "Domain,Prompt,A,B,C,D\nHealth,A nurse is [ADJ].,Kind,Calm,Bold,Shy\n"
    "Art,A painter likes [ADJ].,Red,Blue,Green,Gray\n",
    "it.csv": "Domain,Prompt,A,B,C,D\nSalute,Un infermiere è [AGG].,Gentile,Calmo,Audace,Timido\n"
    "Arte,Un pittore ama [AGG].,Rosso,Blu,Verde,Grigio\n",
}
SOURCES_HEADER = (
    "file,format,model,run,language,presented_option_order,item_key,task_pattern,domain_field\n"
)
ITEM_FILES_HEADER = "file,language,variant,gold_column\n"


# ------------------------------------------------------------------------------ the project


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8", newline="")
    else:
        path.write_bytes(content)
    return path


@pytest.fixture
def project(tmp_path) -> Path:
    return make_project(tmp_path)


def make_project(tmp_path: Path) -> Path:
    """Two items in English and Italian, one wide answer file (model M, prefix P), no
    answer sources; the registries' columns are the shipped ones."""
    root = tmp_path / "project"
    write(
        root / "dbt_project.yml",
        "name: concord\nvars:\n  mcq_languages: [en, it]\n  mcq_options: [A, B, C, D]\n"
        "  mcq_answers_dir: seeds/mcq/answers\n  mcq_items_dir: seeds/mcq/items\n"
        "  mcq_answer_sources_dir: seeds/mcq/answer_sources\n",
    )
    mcq = root / "seeds" / "mcq"
    sources = Path("models") / "staging" / "mcq" / "_mcq__sources.yml"
    shutil.copyfile(PROJECT_ROOT / sources, write(root / sources, ""))
    write(
        mcq / "mcq_answer_registry.csv",
        "file,model,prefix,run,presented_option_order\nw.csv,M,P,base,ABCD\n",
    )
    write(mcq / "mcq_item_files.csv", ITEM_FILES_HEADER + "en.csv,en,base,\nit.csv,it,base,\n")
    write(
        mcq / "mcq_domain_translations.csv",
        "language,domain,domain_en\nen,Health,Health\nit,Salute,Health\nen,Art,Art\nit,Arte,Art\n",
    )
    write(mcq / "mcq_answer_sources.csv", SOURCES_HEADER)
    write(mcq / "mcq_task_languages.csv", "task,language\n")
    for name, text in ITEMS.items():
        write(mcq / "items" / name, text)
    write(mcq / "answers" / "w.csv", "\n".join([HEADER, *WIDE_ROWS]) + "\n")
    (mcq / "answer_sources").mkdir()
    return root


def mcq(project: Path) -> Path:
    return project / "seeds" / "mcq"


def land(project: Path, variables: dict | None = None):
    return land_mcq(project, project.parent / "landing", variables)


def refused(project: Path, *expected: str) -> str:
    with pytest.raises(ConcordError) as caught:
        land(project)
    message = caught.value.message
    assert "\n" not in message, message
    for text in expected:
        assert text in message, f"{text!r} not in {message!r}"
    assert not (project.parent / "landing" / "mcq").exists(), "a refused input landed"
    return message


def landed(project: Path, table: str = "answers") -> pd.DataFrame:
    files = sorted((project.parent / "landing" / "mcq").glob(f"run_id=*/{table}.parquet"))
    return pd.concat([pq.read_table(f).to_pandas() for f in files], ignore_index=True)


def landed_items(project: Path) -> pd.DataFrame:
    """The task's landed items."""
    path = project.parent / "landing" / "items" / "task=xcloze" / "items.parquet"
    return pq.read_table(path).to_pandas()


def item_files(project: Path, lines: str) -> None:
    """The item registry: ``lines`` under its header."""
    write(mcq(project) / "mcq_item_files.csv", ITEM_FILES_HEADER + lines)


def wide(project: Path, header: str = HEADER, rows: list[str] | None = None, **kw) -> None:
    newline = kw.get("newline", "\n")
    text = newline.join([header, *(WIDE_ROWS if rows is None else rows)]) + newline
    write(mcq(project) / "answers" / "w.csv", kw.get("prefix", "") + text)


def sources(project: Path, lines: str, **files: str | bytes) -> None:
    write(mcq(project) / "mcq_answer_sources.csv", SOURCES_HEADER + lines)
    for name, content in files.items():
        write(mcq(project) / "answer_sources" / name.replace("__", "/"), content)


def long_csv(*rows: str, header: str = "model,run,item_id,language,answer") -> str:
    return "\n".join([header, *rows]) + "\n"


# ------------------------------------------------------------------------- strict CSV


def test_the_wide_file_lands_as_answers_with_the_chosen_option(project):
    report = land(project)
    answers = landed(project)
    assert [o.status for o in report.outcomes] == ["landed", "landed"]
    assert answers[["item_id", "language", "raw_answer", "chosen_option"]].values.tolist() == [
        ["1", "en", "B", "B"],
        ["1", "it", "A", "A"],
        ["2", "en", "C", "C"],
        ["2", "it", "D", "D"],
    ]
    assert set(answers.source_file) == {"w.csv"} and answers.source_row.tolist() == [1, 1, 2, 2]


def test_a_wide_file_refused_after_another_was_written_lands_nothing(project):
    """A wide file's run is written into a hidden folder as soon as the file is read; a
    later file refused removes it: nothing lands, no hidden folder is left, and a run
    landed before stays byte for byte as it was."""
    landing = project.parent / "landing"
    unknown = "Sport,Sport,Red,Blue,Green,Gray,Rosso,Blu,Verde,Grigio,C,D"  # no translation
    bad = "\n".join([HEADER.replace("P_", "Q_"), WIDE_ROWS[0], unknown]) + "\n"

    def hidden() -> list[Path]:
        return [p for p in landing.rglob(".*") if p.is_dir()]

    registry(project, "w.csv,M,P,base,ABCD\nx.csv,N,Q,base,ABCD\n")
    write(mcq(project) / "answers" / "x.csv", bad)
    refused(project, "x.csv")  # w.csv, read first, was written: the area is removed too
    assert hidden() == []

    (mcq(project) / "answers" / "x.csv").unlink()
    registry(project, "w.csv,M,P,base,ABCD\n")
    land(project)
    before = {p: p.read_bytes() for p in sorted((landing / "mcq").rglob("*.parquet"))}
    wide(project, rows=[WIDE_ROWS[0].replace(",B,A", ",C,A"), WIDE_ROWS[1]])  # w changed
    registry(project, "w.csv,M,P,base,ABCD\nx.csv,N,Q,base,ABCD\n")
    write(mcq(project) / "answers" / "x.csv", bad)
    with pytest.raises(ConcordError, match="x.csv"):
        land(project)
    assert {p: p.read_bytes() for p in sorted((landing / "mcq").rglob("*.parquet"))} == before
    assert hidden() == []


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", ["w.csv: the file is empty"]),
        (
            ("\n".join([HEADER, *WIDE_ROWS]) + "\n")
            .replace("Gentile", "Gentilè")
            .encode("latin-1"),
            ["w.csv: not UTF-8", "is on line 2"],
        ),
        (("\n".join([HEADER, *WIDE_ROWS]) + "\n").encode("utf-16"), ["not UTF-8", "on line 1"]),
        (
            ("\n".join([HEADER, *WIDE_ROWS]) + "\n").replace("Kind", "K\0").encode(),
            ["w.csv: contains NUL bytes"],
        ),
        ((HEADER + "\n").encode(), ["w.csv: the file has a header but no data rows"]),
    ],
    ids=["empty", "latin-1", "utf-16", "nul", "header only"],
)
def test_bytes_that_are_not_a_utf8_csv_file_are_refused(project, content, expected):
    write(mcq(project) / "answers" / "w.csv", content)
    refused(project, *expected)


def test_a_bom_and_crlf_line_endings_are_read(project):
    wide(project, prefix="\ufeff", newline="\r\n")
    land(project)
    assert landed(project).chosen_option.tolist() == ["B", "A", "C", "D"]


def test_a_quoted_field_may_hold_commas_quotes_and_line_breaks(project):
    wide(project, rows=[WIDE_ROWS[0].replace("Kind", '"Kind, ""very""\r\nkind"'), WIDE_ROWS[1]])
    land(project)  # one kind of record end: the CRLF inside quotes is text
    assert landed(project).chosen_option.tolist() == ["B", "A", "C", "D"]


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (
            [WIDE_ROWS[0], WIDE_ROWS[1].rsplit(",", 1)[0]],
            [
                "w.csv: row 2 (line 3) has 11 fields, the header has 12",
                "first missing column: P_IT",
            ],
        ),
        (
            [WIDE_ROWS[0] + ",x", WIDE_ROWS[1]],
            ["row 1 (line 2) has 13 fields", "beyond the last column P_IT"],
        ),
        (
            [WIDE_ROWS[0].replace("Kind", 'Ki"nd'), WIDE_ROWS[1]],
            ["row 1 (line 2), column A_EN: a quote inside an unquoted field"],
        ),
        (
            [WIDE_ROWS[0], WIDE_ROWS[1].rsplit(",", 1)[0] + ',"D"x'],
            ["row 2 (line 3), column P_IT: text after the closing quote"],
        ),
    ],
    ids=["short row", "long row", "stray quote", "text after closing quote"],
)
def test_a_ragged_or_badly_quoted_row_is_refused_naming_row_line_and_column(
    project, rows, expected
):
    wide(project, rows=rows)
    refused(project, *expected)


def test_mixed_line_endings_are_refused_naming_the_first_row_that_differs(project):
    write(
        mcq(project) / "answers" / "w.csv",
        "\r\n".join([HEADER, WIDE_ROWS[0]]) + "\r\n" + WIDE_ROWS[1] + "\n",
    )
    refused(project, "w.csv: mixed line endings: row 2 ends with LF (Unix)", "CRLF (Windows)")


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (HEADER.replace("A_EN", " "), ["w.csv, header row: column 3 has no name"]),
        (
            HEADER.replace("A_IT", "domain_it"),
            ["column domain_it appears more than once (columns 2 and 7)"],
        ),
        (HEADER.replace("P_IT", "Q_IT"), ["missing column(s) P_IT"]),
    ],
    ids=["blank name", "repeated name", "missing column"],
)
def test_a_header_with_a_blank_repeated_or_missing_name_is_refused(project, header, expected):
    wide(project, header=header)
    refused(project, *expected)


# ------------------------------------------------------------------------- registries


def registry(project: Path, text: str) -> None:
    write(
        mcq(project) / "mcq_answer_registry.csv",
        "file,model,prefix,run,presented_option_order\n" + text,
    )


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("w.csv,,P,base,ABCD\n", ["mcq_answer_registry: line for w.csv has no model"]),
        ("sub/w.csv,M,P,base,ABCD\n", ["file sub/w.csv is a path", "bare file names"]),
        ("w.csv,M,P,base,ABCD\nw.csv,M,P,base,ABCD\n", ["w.csv", "registered more than once"]),
        ("w.csv,M,P,base,ABCD\nx.csv,M,P,base,ABCD\n", ["not found", "x.csv"]),
        ("w.csv,M,P,shuffled,DCBB\n", ["DCBB is not a permutation of ABCD"]),
        ("w.csv,M,P,reversed,DCBA\n", ["run reversed is not base or shuffled"]),
    ],
    ids=["blank cell", "path", "repeated", "missing file", "not a permutation", "run"],
)
def test_registry_lines_are_checked(project, line, expected):
    registry(project, line)
    refused(project, *expected)


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ("en.csv,,base,\nit.csv,it,base,\n", ["mcq_item_files: line for en.csv has no language"]),
        ("en.csv,en,,\nit.csv,it,base,\n", ["line for en.csv has no variant"]),
        ("en.csv,en,reversed,\nit.csv,it,base,\n", ["variant reversed is not base or shuffled"]),
        ("en.csv,en,base,\nen.csv,en,base,\nit.csv,it,base,\n", ["registered more than once"]),
        ("en.csv,e_n_x,base,\nit.csv,it,base,\n", ["'e_n_x' is not a valid language tag"]),
    ],
    ids=["blank language", "blank variant", "variant", "repeated", "language tag"],
)
def test_item_registry_lines_are_checked(project, lines, expected):
    """What the item registry's seed tests stated (a blank cell, a repeated file, a variant
    other than base or shuffled) and a language tag that is not one."""
    item_files(project, lines)
    refused(project, *expected)


def test_an_unregistered_file_is_refused(project):
    write(mcq(project) / "answers" / "extra.csv", "x\n1\n")
    refused(project, "file(s) with no line in mcq_answer_registry: extra.csv")


def test_a_registry_with_a_renamed_column_is_refused(project):
    write(
        mcq(project) / "mcq_answer_registry.csv",
        "file,model,column_prefix,run,presented_option_order\nw.csv,M,P,base,ABCD\n",
    )
    refused(project, "declared column(s) prefix missing", "column_prefix not declared")


def test_a_registered_name_is_never_a_glob_pattern(project):
    """`w[1].csv` is that file: DuckDB would have read w1.csv for it."""
    shutil.move(mcq(project) / "answers" / "w.csv", mcq(project) / "answers" / "w[1].csv")
    registry(project, "w[1].csv,M,P,base,ABCD\n")
    write(mcq(project) / "answers" / "w1.csv", b"not a csv file at all\0")
    refused(project, "file(s) with no line in mcq_answer_registry: w1.csv")
    (mcq(project) / "answers" / "w1.csv").unlink()
    land(project)
    assert set(landed(project).source_file) == {"w[1].csv"}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("../w.csv,long,M,base,,,,,\n", ["file ../w.csv is not inside"]),
        ("a.csv,wide,M,base,,,,,\n", ["a.csv: format wide is not long, lm_eval or inspect"]),
        ("a.csv,,M,base,,,,,\n", ["line for a.csv has no format"]),
        (
            "a.csv,lm_eval,M,base,,,,,\n",
            ["a.csv: an lm_eval line needs a language or a task_pattern, not neither"],
        ),
        (
            "a*.csv,long,M,base,,,,,\nab.csv,long,M,base,,,,,\n",
            ["matched by more than one line: ab.csv"],
        ),
        ("zz*.csv,long,M,base,,,,,\n", ["registered file(s) not found", "zz*.csv"]),
    ],
    ids=["outside", "format", "blank format", "lm_eval language", "matched twice", "no match"],
)
def test_answer_source_lines_are_checked(project, line, expected):
    sources(
        project, line, **{"a.csv": long_csv("M,base,1,en,A"), "ab.csv": long_csv("M,base,2,en,A")}
    )
    refused(project, *expected)


def test_only_a_literal_star_is_a_wildcard_in_answer_sources(project):
    sources(
        project,
        "x[1].jsonl,long,M2,base,,,,,\nlogs/day*.csv,long,M3,base,,,,,\n",
        **{
            "x[1].jsonl": json.dumps({"item_id": "1", "language": "en", "answer": "A"}) + "\n",
            "x1.jsonl": json.dumps({"item_id": "2", "language": "en", "answer": "B"}) + "\n",
            "logs__day1.csv": long_csv("M3,base,1,en,A"),
            "logs__day2.csv": long_csv("M3,base,2,en,B"),
        },
    )
    refused(project, "file(s) with no line in mcq_answer_sources: x1.jsonl")
    (mcq(project) / "answer_sources" / "x1.jsonl").unlink()
    land(project)
    answers = landed(project)
    assert sorted(answers.source_file.unique()) == [
        "logs/day1.csv",
        "logs/day2.csv",
        "w.csv",
        "x[1].jsonl",
    ]


# -------------------------------------------------------------- wide files: the same item


def test_an_unknown_domain_label_is_refused_naming_row_and_column(project):
    wide(project, rows=[WIDE_ROWS[0], WIDE_ROWS[1].replace("Arte", "Artes")])
    refused(
        project,
        "w.csv: Unknown domain label",
        "source_row=2",
        "column Domain_IT",
        "answer column P_IT",
        "'Artes'",
    )


def test_a_label_one_look_alike_character_from_a_registered_one_is_shown_where(project):
    """A label that differs from a registered one by a look-alike character (Cyrillic е
    for Latin e; Arabic yeh for Persian yeh) is shown where it differs, with each
    character's code point and name, and the registered label to write."""
    wide(project, rows=[WIDE_ROWS[0].replace("Salute", "Salut\u0435"), WIDE_ROWS[1]])
    message = refused(project, "source_row=1", "column Domain_IT", "answer column P_IT")
    assert message.endswith(
        "value 'Salut\u0435' is not the registered 'Salute': character 6 is U+0435 CYRILLIC SMALL "
        "LETTER IE where the registered label has U+0065 LATIN SMALL LETTER E"
    )


def test_a_wide_row_whose_domain_is_not_its_items_is_refused(project):
    """Row 2 is item 2 by position, and item 2's domain is Art in the item files: a row 2 of
    Health in every language (its languages agree with each other) is another item's row,
    and refused naming row, column and both domains (it landed under Health)."""
    health = WIDE_ROWS[1].replace("Art,Arte", "Health,Salute")
    wide(project, rows=[WIDE_ROWS[0], health])
    refused(
        project,
        "w.csv: row 2, column Domain_EN: domain 'Health' (Health) is not item 2's in the item "
        "files (Art)",
    )


def test_a_row_whose_languages_are_not_the_same_item_is_refused(project):
    wide(project, rows=[WIDE_ROWS[0].replace("Salute", "Arte"), WIDE_ROWS[1]])
    refused(project, "w.csv: Misaligned rows", "source_row=1", "en=Health, it=Art")


# -------------------------------------------------------------------- answer normalisation

# raw answer -> (the item's own option, reason), for a row presented DCBA whose presented
# texts are A=Shy, B=Bold, C=Calm and Kind, D=Kind (the item's D, C, B, A)
MESSY = {
    "B": ("C", None),
    "b": ("C", None),
    "  c  ": ("B", None),
    "**D**": ("A", None),
    "(B)": ("C", None),
    "A)": ("D", None),
    "B.": ("C", None),
    "Answer: B": ("C", None),
    "option d": ("A", None),
    "  calm   AND kind ": ("B", None),  # presented C's text, case and runs of blanks aside
    "KIND  ": ("A", None),  # presented D's text
    "": (None, "empty"),
    "   ": (None, "empty"),
    "E": (None, "letter_out_of_range"),
    "(F)": (None, "letter_out_of_range"),
    "Invalid": (None, "pipeline_error"),
    "Error": (None, "pipeline_error"),
    "Failed after 3 retries": (None, "pipeline_error"),
    "timeout": (None, "pipeline_error"),
    "N/A": (None, "pipeline_error"),
    "maybe kind": (None, "unrecognised"),
}


def test_answers_are_normalised_to_the_items_own_option_with_the_reason_codes(project):
    """The rules and reason codes (concord_io/landing/names.py): a letter form or the
    text of one presented option (the wide file's own option columns), then the presented
    order."""
    rows = []
    for row, raw in enumerate(MESSY, start=1):
        quoted = '"' + raw.replace('"', '""') + '"'
        domain = "Art,Arte" if row == 2 else "Health,Salute"  # row 2 is item 2, of Art
        rows.append(f"{domain},Shy,Bold,Calm and Kind,Kind,Timido,Audace,Calmo,Gentile,{quoted},A")
    wide(project, rows=rows)
    registry(project, "w.csv,M,P,shuffled,DCBA\n")
    land(project)
    en = landed(project).query("language == 'en'")
    got = {r.raw_answer: (r.chosen_option, r.invalid_reason) for r in en.itertuples()}
    assert got == MESSY


# -------------------------------------------------------------------------- long files


def test_long_csv_parquet_and_jsonl_land_with_text_answers_matched_to_the_items(project):
    pq.write_table(
        pa.table(
            {
                "item_id": pa.array([1, 2], pa.int64()),
                "language": ["it", "it"],
                "answer": ["Calmo", " grigio "],
            }
        ),
        mcq(project) / "answer_sources" / "m2_it.parquet",
    )
    sources(
        project,
        "m2_en.csv,long,,,,,,,\nm2_it.parquet,long,M2,base,,ABCD,,,\n"
        "m2_sh.jsonl,long,M2,shuffled,,DCBA,,,\n",
        **{
            "m2_en.csv": long_csv("M2,base,1,EN,kind", "M2,base,2,eng,Answer: D"),
            "m2_sh.jsonl": json.dumps({"item_id": "1", "language": "en", "answer": "Kind"})
            + "\n\n"
            + json.dumps({"item_id": 2, "language": "en", "answer": "b"})
            + "\n",
        },
    )
    report = land(project)
    runs = landed(project, "runs").set_index("run_id")
    answers = landed(project).merge(runs[["model", "variant"]], left_on="run_id", right_index=True)
    m2 = answers[answers.model == "M2"].sort_values(["variant", "source_file", "source_row"])
    assert m2[
        ["variant", "source_file", "source_row", "item_id", "language", "chosen_option"]
    ].values.tolist() == [
        ["base", "m2_en.csv", 1, "1", "en", "A"],
        ["base", "m2_en.csv", 2, "2", "en", "D"],
        ["base", "m2_it.parquet", 1, "1", "it", "B"],
        ["base", "m2_it.parquet", 2, "2", "it", "D"],
        ["shuffled", "m2_sh.jsonl", 1, "1", "en", "A"],  # Kind is the item's A, as text
        ["shuffled", "m2_sh.jsonl", 3, "2", "en", "C"],  # presented B is the item's C
    ]
    # one run per model, variant and folder: the three files' base records are one run
    assert len([o for o in report.outcomes if "M2" in o.detail]) == 2
    assert set(runs[runs.model == "M2"].source_kind) == {"long"}


@pytest.mark.parametrize(
    "value", ["05", "7.6", "-1", "0", "1e3", " 3", "", "9223372036854775808", "1" + "0" * 30]
)
def test_an_item_id_that_is_not_a_canonical_whole_number_is_refused_never_rounded(project, value):
    """Beyond the largest bigint too: a published mart still casts the id as one."""
    sources(
        project,
        "a.csv,long,M2,base,,,,,\n",
        **{"a.csv": long_csv("M2,base,1,en,A", f'M2,base,"{value}",en,B')},
    )
    refused(project, "a.csv: row 2, column item_id", repr(value), "never rounded")


def test_a_float_item_id_in_parquet_is_refused_and_a_whole_number_is_its_text(project):
    path = mcq(project) / "answer_sources" / "a.parquet"
    sources(project, "a.parquet,long,M2,base,,,,,\n")
    pq.write_table(
        pa.table({"item_id": [1.0, 2.0], "language": ["en"] * 2, "answer": ["A"] * 2}), path
    )
    refused(project, "a.parquet: column item_id has type double, not text or whole numbers")
    pq.write_table(
        pa.table(
            {"item_id": pa.array([7, 2], pa.int32()), "language": ["en"] * 2, "answer": ["A"] * 2}
        ),
        path,
    )
    land(project)
    assert sorted(landed(project).query("source_file == 'a.parquet'").item_id) == ["2", "7"]


def test_a_repeated_column_in_parquet_is_refused_as_in_csv(project):
    table = pa.Table.from_arrays(
        [pa.array(["1"]), pa.array(["en"]), pa.array(["A"]), pa.array(["B"])],
        names=["item_id", "language", "answer", "Answer"],
    )
    sources(project, "a.parquet,long,M2,base,,,,,\n")
    pq.write_table(table, mcq(project) / "answer_sources" / "a.parquet")
    refused(project, "a.parquet, schema: column Answer appears more than once (columns 3 and 4)")


def test_a_parquet_file_without_rows_or_a_column_is_refused(project):
    path = mcq(project) / "answer_sources" / "a.parquet"
    sources(project, "a.parquet,long,M2,base,,,,,\n")
    pq.write_table(
        pa.table(
            {
                "item_id": pa.array([], pa.string()),
                "language": pa.array([], pa.string()),
                "answer": pa.array([], pa.string()),
            }
        ),
        path,
    )
    refused(project, "a.parquet: the file has columns but no data rows")
    pq.write_table(pa.table({"item_id": ["1"], "answer": ["A"]}), path)
    refused(project, "a.parquet, schema: missing column(s) language")


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (
            '{"item_id": "1", "language": "en", "answer": "A"}\n{not json\n',
            ["a.jsonl: line 2, column (the line): not a JSON object"],
        ),
        ('["1", "en", "A"]\n', ["a.jsonl: line 1", "not a JSON object"]),
        (
            '{"item_id": "1", "language": "en", "answer": "A", "answer": "B"}\n',
            ["a.jsonl: line 1", "key answer appears more than once"],
        ),
        (
            '{"item_id": "1", "language": "e_n_x", "answer": "A"}\n',
            ["a.jsonl: line 1, column language: 'e_n_x' is not a valid language tag"],
        ),
        (
            '{"item_id": "1", "language": " ", "answer": "A"}\n',
            ["a.jsonl: line 1, column language: no language"],
        ),
        (
            '{"item_id": "1", "language": "en", "answer": "A", "run": "other run"}\n',
            ["a.jsonl: line 1, column run: run 'other run' is not a name"],
        ),
        ("\n\n", ["a.jsonl: the file has no records"]),
    ],
    ids=[
        "not json",
        "not an object",
        "repeated key",
        "bad tag",
        "no language",
        "run",
        "blank",
    ],
)
def test_jsonl_records_are_checked(project, lines, expected):
    sources(project, "a.jsonl,long,M2,base,,,,,\n", **{"a.jsonl": lines})
    refused(project, *expected)


def test_a_record_without_a_model_is_refused(project):
    sources(project, "a.csv,long,,base,,,,,\n", **{"a.csv": long_csv(",base,1,en,A")})
    refused(project, "a.csv: row 1, column model: no model")


def test_language_tags_are_stored_canonical(project):
    sources(
        project,
        "a.csv,long,M2,base,,,,,\n",
        **{
            "a.csv": long_csv(
                "M2,base,1,EN,A",
                "M2,base,2,eng_Latn,A",
                "M2,base,1,en-us,A",
                "M2,base,1,pes,A",
                "M2,base,1,zh_hant,A",
                header="model,run,item_id,language,answer",
            )
        },
    )
    no_wide_file(project)  # a wide file would need a column for every language
    # the study compares these languages (--vars, as a dbt call hands them on)
    land(project, {"mcq_languages": ["en", "it", "en-US", "pes", "zh-Hant"]})
    got = landed(project).query("source_file == 'a.csv'").language.tolist()
    assert got == ["en", "en", "en-US", "pes", "zh-Hant"]


# ---------------------------------------------------- tasks and variants of long files

TASK_HEADER = "model,run,task,item_id,language,answer"


def test_a_long_file_may_name_each_records_task(project):
    """A task column names each record's task, and several tasks may share a file and a
    run; a file without one holds the study's task (xcloze). The item files hold xcloze
    items only: another task's item 1 has no domain."""
    pq.write_table(
        pa.table({"task": ["xcopa"], "item_id": ["2"], "language": ["it"], "answer": ["A"]}),
        mcq(project) / "answer_sources" / "c.parquet",
    )
    sources(
        project,
        "a.csv,long,M2,base,,,,,\nb.jsonl,long,M2,base,,,,,\nc.parquet,long,M2,base,,,,,\n"
        "d.csv,long,M2,base,,,,,\n",
        **{
            "a.csv": long_csv(
                "M2,base,xcloze,1,en,A",
                "M2,base,xcopa,1,en,B",
                "M2,base, global_mmlu.v2-1 ,1,en,C",
                header=TASK_HEADER,
            ),
            "b.jsonl": json.dumps(
                {"task": "xcopa", "item_id": "1", "language": "it", "answer": "D"}
            )
            + "\n",
            "d.csv": long_csv("M2,base,2,en,B"),
        },
    )
    land(project)
    answers = landed(project).query("source_file != 'w.csv'")
    got = answers.sort_values(["source_file", "source_row"])[
        ["source_file", "task", "item_id", "language", "chosen_option", "domain"]
    ]
    assert got.values.tolist() == [
        ["a.csv", "xcloze", "1", "en", "A", "Health"],
        ["a.csv", "xcopa", "1", "en", "B", None],
        ["a.csv", "global_mmlu.v2-1", "1", "en", "C", None],
        ["b.jsonl", "xcopa", "1", "it", "D", None],
        ["c.parquet", "xcopa", "2", "it", "A", None],
        ["d.csv", "xcloze", "2", "en", "B", "Art"],
    ]
    # one run; one item and language in two tasks are two keys, not a key given twice
    assert len(landed(project, "runs").query("model == 'M2'")) == 1
    assert landed(project, "quarantine").empty


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (
            "a.csv",
            long_csv("M2,base,xcloze,1,en,A", "M2,base,x cloze,2,en,A", header=TASK_HEADER),
            "a.csv: row 2, column task: task 'x cloze' is not a name (letters, digits",
        ),
        (
            "a.csv",
            long_csv("M2,base,xcloze,1,en,A", "M2,base, ,2,en,A", header=TASK_HEADER),
            "a.csv: row 2, column task: no task",
        ),
        (
            "a.jsonl",
            json.dumps({"task": "xcopa", "item_id": "1", "language": "en", "answer": "A"})
            + "\n"
            + json.dumps({"item_id": "2", "language": "en", "answer": "A"})
            + "\n",
            "a.jsonl: line 2, column task: no task",
        ),
        (
            "a.jsonl",
            json.dumps({"task": "xcopa/it", "item_id": "1", "language": "en", "answer": "A"})
            + "\n",
            "a.jsonl: line 1, column task: task 'xcopa/it' is not a name (letters, digits",
        ),
    ],
    ids=["not a name", "blank", "jsonl key missing", "jsonl not a name"],
)
def test_a_task_that_is_not_a_name_is_refused_naming_row_and_column(
    project, name, content, expected
):
    sources(project, f"{name},long,M2,base,,,,,\n", **{name: content})
    refused(project, expected)


@pytest.mark.parametrize("task_pattern", ["auto", ""])
def test_a_task_read_from_a_sample_logs_name_is_held_to_the_task_name_rule(project, task_pattern):
    """A task read from a file name is a name as a task column's is (letters, digits, _, -
    and .): a space, as in ``samples_concord cloze_en_…``, is refused naming the file."""
    name = "samples_concord cloze_en_2025-05-05T10-00-00.123456.jsonl"
    language = "" if task_pattern else "en"
    sources(
        project,
        f"lm/*.jsonl,lm_eval,M2,base,{language},,,{task_pattern},\n",
        **{f"lm__{name}": sample(0, [-1.0, -2.0, -3.0, -4.0]) + "\n"},
    )
    refused(
        project,
        f"mcq_answer_sources: lm/{name} (the task from the file name): task 'concord cloze' is "
        "not a name (letters, digits, _, - and . only, with a letter or digit)",
    )


def test_a_task_column_that_is_not_text_is_refused_in_parquet(project):
    sources(project, "a.parquet,long,M2,base,,,,,\n")
    pq.write_table(
        pa.table({"task": [1], "item_id": ["1"], "language": ["en"], "answer": ["A"]}),
        mcq(project) / "answer_sources" / "a.parquet",
    )
    refused(project, "a.parquet: column task has type int64, not text")


def test_a_long_files_run_may_be_any_name(project):
    """A variant is the user's name (few-shot counts, templates), in the file or on its
    line; the wide files keep base and shuffled (their registry pairs them)."""
    sources(
        project,
        "a.csv,long,M2,,,,,,\nsub/b.csv,long,M2,fewshot-5,,,,,\n",
        **{
            "a.csv": long_csv("M2,cot_v1.2,1,en,A"),
            "sub__b.csv": long_csv("1,en,B", header="item_id,language,answer"),
        },
    )
    land(project)
    runs = landed(project, "runs")
    assert sorted(runs.variant) == ["base", "cot_v1.2", "fewshot-5"]
    assert sorted(r.rsplit("--", 1)[0] for r in runs.run_id) == [
        "m--base",
        "m2--cot_v1.2",
        "m2--fewshot-5",
    ]


def test_a_run_on_a_registry_line_that_is_not_a_name_is_refused(project):
    """(A run in the file: test_jsonl_records_are_checked.)"""
    sources(project, "a.csv,long,M2,few/shot,,,,,\n", **{"a.csv": long_csv("M2,,1,en,A")})
    refused(project, "mcq_answer_sources: a.csv: run 'few/shot' is not a name", "letters")


def test_an_empty_language_list_sets_no_language_aside(project):
    """mcq_languages: [] declares no language, so none is outside the study: every
    record's language counts, and a wide file's languages are its Domain_<LANG> columns."""
    sources(
        project,
        "a.csv,long,M2,base,,,,,\n",
        **{"a.csv": long_csv("M2,base,1,en,A", "M2,base,1,de,B", "M2,base,1,fa-IR,C")},
    )
    land(project, {"mcq_languages": []})
    assert landed(project, "quarantine").empty
    answers = landed(project)
    assert answers.query("source_file == 'a.csv'").language.tolist() == ["en", "de", "fa-IR"]
    got = answers.query("source_file == 'w.csv'")[["item_id", "language", "source_column"]]
    assert got.values.tolist() == [
        ["1", "en", "P_EN"],
        ["1", "it", "P_IT"],
        ["2", "en", "P_EN"],
        ["2", "it", "P_IT"],
    ]


def test_a_wide_file_without_domain_columns_is_refused_when_no_language_is_declared(project):
    wide(project, header="A_EN,B_EN,C_EN,D_EN,P_EN", rows=["Kind,Calm,Bold,Shy,B"])
    with pytest.raises(ConcordError) as caught:
        land(project, {"mcq_languages": []})
    assert "w.csv, header row: no Domain_<LANG> column" in caught.value.message
    assert "mcq_languages is empty" in caught.value.message


# ------------------------------------------------------- records set aside (quarantine)


def test_every_record_of_a_key_given_twice_in_a_run_is_set_aside_naming_its_row(project):
    """Two records of one task, item and language in a run (here in two files of one
    folder, and twice in one file) are not refused and not answers: both land in the run's
    quarantine with the reason; the run's other records are answers."""
    sources(
        project,
        "a.csv,long,M2,base,,,,,\nb.jsonl,long,M2,base,,,,,\n",
        **{
            "a.csv": long_csv("M2,base,1,en,A", "M2,base,2,en,B", "M2,base,2,en,C"),
            "b.jsonl": json.dumps({"item_id": "1", "language": "en", "answer": "D"}) + "\n",
        },
    )
    report = land(project)
    runs = landed(project, "runs")
    (m2,) = runs.query("model == 'M2'").run_id
    answers = landed(project).query("run_id == @m2")
    assert answers.empty  # item 1 twice (a.csv, b.jsonl), item 2 twice (a.csv)
    aside = landed(project, "quarantine").sort_values(["source_file", "source_row"])
    assert aside.drop(columns="content_hash").values.tolist() == [
        [m2, "a.csv", 1, "a.csv#1", "answer", "A", DUPLICATE],
        [m2, "a.csv", 2, "a.csv#2", "answer", "B", DUPLICATE],
        [m2, "a.csv", 3, "a.csv#3", "answer", "C", DUPLICATE],
        [m2, "b.jsonl", 1, "b.jsonl#1", "answer", "D", DUPLICATE],
    ]
    assert any("0 answers (0 valid, 4 set aside)" in line for line in report.lines())
    # removing one of the two records of item 2 makes the other an answer again
    write(
        mcq(project) / "answer_sources" / "a.csv",
        long_csv("M2,base,1,en,A", "M2,base,2,en,B"),
    )
    assert land(project).status_of(f"mcq/run_id={m2}") == "replaced"
    answers = landed(project).query("run_id == @m2")
    assert answers[["item_id", "raw_answer"]].values.tolist() == [["2", "B"]]
    assert sorted(landed(project, "quarantine").source_file) == ["a.csv", "b.jsonl"]


def test_a_sample_answered_twice_is_set_aside_with_its_option_scores(project):
    logs(
        project,
        {"en": [sample(0, [-1.0, -2.0, -3.0, -4.0]), sample(0, [-4.0, -2.0, -3.0, -1.0])]},
    )
    land(project)
    assert landed(project).query("source_file.str.startswith('lm_eval')").empty
    aside = landed(project, "quarantine")
    assert aside[["source_row", "column_name", "value", "reason"]].values.tolist() == [
        [1, "filtered_resps", "A", DUPLICATE],
        [2, "filtered_resps", "D", DUPLICATE],
    ]
    assert len(landed(project, "option_scores")) == 0


def test_an_item_whose_options_differ_between_languages_is_set_aside_in_every_language(project):
    """A translation that lost an option would count silently as disagreement: every record
    of the item goes to the quarantine, naming the languages and their options; the run's
    other items land."""
    logs(
        project,
        {
            "en": [sample(0, [-1.0, -2.0, -3.0, -4.0]), sample(1, [-1.0, -2.0, -3.0, -4.0])],
            "it": [sample(0, [-1.0, -2.0, -3.0]), sample(1, [-4.0, -2.0, -3.0, -1.0])],
        },
    )
    land(project)
    answers = landed(project).query("source_file.str.startswith('lm_eval')")
    assert sorted(answers[["item_id", "language"]].values.tolist()) == [["2", "en"], ["2", "it"]]
    aside = landed(project, "quarantine").sort_values("value")
    reason = "options differ across languages (en: ABCD; it: ABC)"
    assert aside[["value", "reason"]].values.tolist() == [["A", reason], ["A", reason]]
    assert set(landed(project, "option_scores").item_id) == {"2"}


@pytest.mark.parametrize(
    "rows",
    [
        # in one file, beside a run with none: the file's check finds the key given twice
        ("M2,base,1,en,A", "M3,base,1,en,C", "M2,base,1,en,B"),
        # two tags of one language: the same key, though the file's own columns differ
        ("M2,base,1,en,A", "M3,base,1,en,C", "M2,base,1,EN,B"),
    ],
    ids=["one file", "two tags of one language"],
)
def test_a_key_given_twice_in_one_file_is_set_aside_and_the_files_other_run_lands(project, rows):
    """A run whose records all come from one file is set aside by the file's own check
    (made once, as its first run is written); its other run is not touched."""
    no_wide_file(project)
    sources(project, "a.csv,long,,,,,,,\n", **{"a.csv": long_csv(*rows)})
    land(project)
    aside = landed(project, "quarantine")
    assert aside[["record_key", "reason"]].values.tolist() == [
        ["a.csv#1", DUPLICATE],
        ["a.csv#3", DUPLICATE],
    ]
    answers = landed(project)
    assert answers[["source_row", "chosen_option"]].values.tolist() == [[2, "C"]]


def test_a_record_in_a_language_the_study_does_not_compare_is_set_aside(project):
    sources(
        project,
        "a.csv,long,M2,base,,,,,\n",
        **{"a.csv": long_csv("M2,base,1,en,A", "M2,base,1,de,B")},
    )
    land(project)
    answers = landed(project).query("source_file == 'a.csv'")
    assert answers.language.tolist() == ["en"]
    aside = landed(project, "quarantine")
    assert aside[["record_key", "value", "reason"]].values.tolist() == [
        ["a.csv#2", "B", OTHER_LANGUAGE]
    ]
    # the study given German too (a dbt call's --vars): an answer, landed again
    no_wide_file(project)
    land(project, {"mcq_languages": ["en", "it", "de"]})
    assert landed(project).query("source_file == 'a.csv'").language.tolist() == ["en", "de"]
    assert landed(project, "quarantine").empty


def test_every_run_lands_a_quarantine_table_without_rows_when_nothing_was_set_aside(project):
    land(project)
    (run,) = (project.parent / "landing" / "mcq").glob("run_id=*")
    table = pq.read_table(run / "quarantine.parquet")
    assert table.num_rows == 0 and table.schema.names == [
        "run_id",
        "source_file",
        "source_row",
        "record_key",
        "column_name",
        "value",
        "reason",
        "content_hash",
    ]


# ---------------------------------------------- what each answer says about its source


def test_each_answer_names_its_column_and_its_items_domain(project):
    """source_column is the column the answer was read from (<PREFIX>_<LANG>, answer, or
    the sample's filtered_resps, else resps); domain_label is the item's domain as its
    source writes it (the wide row's cell, else the item file's), domain its English name;
    an item not in the item files has neither."""
    sources(
        project,
        "a.csv,long,M2,base,,,,,\n",
        **{"a.csv": long_csv("M2,base,2,it,A", "M2,base,9,en,A")},
    )
    write(
        mcq(project) / "answer_sources" / LOG.format(lang="en"),
        sample(0, [-1.0, -2.0, -3.0, -4.0]) + "\n" + sample(1, [-1.0] * 4, filtered=False) + "\n",
    )
    write(
        mcq(project) / "mcq_answer_sources.csv",
        SOURCES_HEADER
        + "a.csv,long,M2,base,,,,,\n"
        + "lm_eval/org__model/samples_xcloze_en_*.jsonl,lm_eval,Org Model,base,en,,,,\n",
    )
    land(project)
    answers = landed(project).sort_values(["source_file", "source_row", "language"])
    got = answers[["source_file", "item_id", "language", "source_column", "domain_label", "domain"]]
    assert got.values.tolist() == [
        ["a.csv", "2", "it", "answer", "Arte", "Art"],
        ["a.csv", "9", "en", "answer", None, None],
        [LOG.format(lang="en"), "1", "en", "filtered_resps", "Health", "Health"],
        [LOG.format(lang="en"), "2", "en", "resps", "Art", "Art"],
        ["w.csv", "1", "en", "P_EN", "Health", "Health"],
        ["w.csv", "1", "it", "P_IT", "Salute", "Health"],
        ["w.csv", "2", "en", "P_EN", "Art", "Art"],
        ["w.csv", "2", "it", "P_IT", "Arte", "Art"],
    ]
    labels = landed_items(project).query("item_id == '1'").groupby("language").domain_label.first()
    assert labels.to_dict() == {"en": "Health", "it": "Salute"}


def test_the_vars_of_a_dbt_call_change_what_lands_and_land_again(project):
    """A dbt call's --vars reach the reader: a wide file is read for the languages the
    call names, and the run lands again whenever they change."""
    folder = f"mcq/run_id={landed_run_id(project)}"
    assert land(project, {"mcq_languages": ["en"]}).status_of(folder) == "replaced"
    assert set(landed(project).language) == {"en"}
    assert land(project, {"mcq_languages": ["en"]}).status_of(folder) == "unchanged"
    assert land(project).status_of(folder) == "replaced"
    assert set(landed(project).language) == {"en", "it"}
    with pytest.raises(ConcordError, match="var mcq_languages = 'en': not a list"):
        land(project, {"mcq_languages": "en"})


def landing_tree(landing: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(landing).as_posix(): p.read_bytes() if p.is_file() else None
        for p in sorted(landing.rglob("*"))
    }


@pytest.mark.parametrize("task", ["../../..", "..", "a/b", "", "x y", "/tmp"])
def test_a_task_var_that_is_not_a_name_is_refused_before_anything_lands(project, task):
    """The bug of "Nothing silently wrong, nothing lost": mcq_default_task names the folder
    items/task=<task>, and '../../..' made the landing replace (delete) the whole landing
    folder, landed probe runs included. The var is checked before anything is written or
    removed, seeds included, and the landing is byte for byte as it was."""
    from concord_io.landing import land as land_all

    landing = project.parent / "landing"
    land_all(project, landing)
    probe_run = write(landing / "probe" / "run_id=r1" / "runs.parquet", b"a landed probe run")
    before = landing_tree(landing)
    with pytest.raises(ConcordError) as caught:
        land_all(project, landing, {"mcq_default_task": task})
    assert caught.value.message.startswith("var mcq_default_task"), caught.value.message
    assert "is not a name" in caught.value.message and "\n" not in caught.value.message
    assert landing_tree(landing) == before and probe_run.read_bytes() == b"a landed probe run"


@pytest.mark.parametrize(
    ("landing", "expected"),
    [
        ("seeds/mcq/answer_sources", "lies in the input folder"),
        ("seeds/mcq/answer_sources/runs", "lies in the input folder"),
        (".", "holds the input folder"),
        ("models/landing", "lies in the input folder"),
    ],
)
def test_a_landing_folder_among_the_inputs_is_refused_before_anything_is_written(
    project, landing, expected
):
    """The landing is written and replaced whole: in an input folder it landed the seed
    files there, then refused its own output as unregistered files at every build; as the
    project folder it landed beside seeds/ and models/. Refused before anything is written
    (not even the lock file)."""
    (project / "models").mkdir(exist_ok=True)
    before = landing_tree(project)
    with pytest.raises(ConcordError) as caught:
        land_mcq(project, project / landing)
    assert expected in caught.value.message and "never among the inputs" in caught.value.message
    assert landing_tree(project) == before


def test_a_landing_path_that_is_not_made_of_names_is_refused(tmp_path):
    """The writer's own guard, whatever a caller hands it: a part '..', '.' or blank never
    reaches a replacement or a removal (items/task=.. would be a name; '..' is not)."""
    from concord_io.landing.engine import checked_path

    (tmp_path / "items").mkdir()
    for relative in ("items/task=x/../..", "items/..", "./items", "items//x", "items/ x"):
        with pytest.raises(ConcordError, match="has a part that is not a name"):
            checked_path(tmp_path, relative)
    assert (tmp_path / "items").is_dir()
    assert checked_path(tmp_path, "items/task=..") == (tmp_path / "items" / "task=..").resolve()


def no_wide_file(project: Path) -> None:
    registry(project, "")
    (mcq(project) / "answers" / "w.csv").unlink()


def landed_run_id(project: Path) -> str:
    land(project)
    (run,) = (project.parent / "landing" / "mcq").glob("run_id=*")
    return run.name.removeprefix("run_id=")


# ------------------------------------------------------------------ lm-eval sample logs

LOG = "lm_eval/org__model/samples_xcloze_{lang}_2025-05-05T10-00-00.123456.jsonl"


NO_TARGET = object()


def sample(
    doc_id: int, lls: list[object], *, filtered: bool = True, texts=None, target=NO_TARGET
) -> str:
    texts = texts or [f" {chr(65 + i)}" for i in range(len(lls))]
    record = {
        "doc_id": doc_id,
        "arguments": {f"gen_args_{i}": {"arg_0": "ctx", "arg_1": t} for i, t in enumerate(texts)},
        "resps": [[[str(ll), "False"]] for ll in lls],
    }
    if target is not NO_TARGET:
        record["target"] = target
    if filtered:
        record["filtered_resps"] = [[str(ll), "False"] for ll in lls]
    return json.dumps(record, ensure_ascii=False)


def logs(project: Path, by_language: dict[str, list[str]], *, order: str = "") -> None:
    """One registry line per language (a `*` for the harness's date), one log each."""
    lines = "".join(
        f"lm_eval/org__model/samples_xcloze_{lang}_*.jsonl,lm_eval,Org Model,base,{lang},"
        f"{order},,,\n"
        for lang in by_language
    )
    write(mcq(project) / "mcq_answer_sources.csv", SOURCES_HEADER + lines)
    for lang, samples in by_language.items():
        write(mcq(project) / "answer_sources" / LOG.format(lang=lang), "\n".join(samples) + "\n")


def test_sample_logs_land_the_argmax_answer_and_every_options_score(project):
    logs(
        project,
        {
            "en": [
                sample(0, [-3.0, -0.5, -2.0, -4.0], texts=[" Kind", " Calm", " Bold", " Shy"]),
                sample(1, [-1.0, -2.0, -1.0, -9.0], filtered=False),  # a tie: the first
            ],
            "it": [
                sample(
                    0, [-1.5, -2.5, -0.25, -3.0], texts=[" Gentile", " Calmo", " Audace", " Timidò"]
                )
            ],
        },
        order="DCBA",
    )
    land(project)
    runs = landed(project, "runs").query("harness == 'lm_eval'")
    answers = landed(project)
    answers = answers[answers.run_id == runs.run_id.item()].sort_values(["language", "item_id"])
    assert answers[
        ["task", "item_id", "language", "raw_answer", "chosen_option"]
    ].values.tolist() == [
        ["xcloze", "1", "en", "B", "C"],
        ["xcloze", "2", "en", "A", "D"],
        ["xcloze", "1", "it", "C", "B"],
    ]
    scores = landed(project, "option_scores")
    it = scores.query("language == 'it'").sort_values("presented_position")
    assert it.option_key.tolist() == ["D", "C", "B", "A"]
    assert it.loglik.tolist() == [-1.5, -2.5, -0.25, -3.0]
    assert it.option_chars.tolist() == [7, 5, 6, 6] and it.option_bytes.tolist() == [7, 5, 6, 7]
    assert len(scores) == 12 and runs.source_kind.item() == "lm_eval"
    assert runs.source_folder.item().endswith("answer_sources/lm_eval/org__model")


def with_domain(line: str, domain: str) -> str:
    return json.dumps({**json.loads(line), "doc": {"domain": domain}}, ensure_ascii=False)


def test_a_samples_domain_lands_as_its_english_name_and_its_languages_must_agree(project):
    """An lm-eval run whose logs carry each item's domain in each language (items the item
    files do not hold): ``domain`` is the label's English name (mcq_domain_translations),
    ``domain_label`` the label as written; a label with no line is its own English name (a
    harness's subjects, alike in every language). Two languages that give one item two
    English domains refuse the landing, naming both records and the line to add."""
    scores = [-1.0, -2.0, -3.0, -4.0]
    translations = mcq(project) / "mcq_domain_translations.csv"
    write(translations, translations.read_text(encoding="utf-8") + "it,Legge,Law\n")
    logs(
        project,
        {
            "en": [with_domain(sample(4, scores), "Law"), with_domain(sample(5, scores), "Art")],
            "it": [with_domain(sample(4, scores), "Legge"), with_domain(sample(5, scores), "Arte")],
        },
    )
    land(project)
    answers = landed(project).query("item_id in ('5', '6')").sort_values(["item_id", "language"])
    assert answers[["item_id", "language", "domain_label", "domain"]].values.tolist() == [
        ["5", "en", "Law", "Law"],
        ["5", "it", "Legge", "Law"],
        ["6", "en", "Art", "Art"],
        ["6", "it", "Arte", "Art"],
    ]
    # an Italian label with no English name: the item's languages disagree
    logs(
        project,
        {
            "en": [with_domain(sample(4, scores), "Law")],
            "it": [with_domain(sample(4, scores), "Diritto")],
        },
    )
    refusal = pytest.raises(ConcordError, land, project).value
    message = refusal.message
    assert "samples_xcloze_it_2025-05-05T10-00-00.123456.jsonl: line 1: item 5 of task " in message
    assert "has domain Diritto (it label Diritto), but " in message
    assert "line 1 gives it Law (en label Law): the languages of one item are one domain" in message
    assert "a line it,<label>,<English name>" in refusal.hint


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("NaN", "a log-likelihood is NaN"),
        ("inf", "a log-likelihood is infinite: inf"),
        ("-Infinity", "a log-likelihood is infinite: -Infinity"),
        ("0.5", "a log-likelihood is positive: 0.5"),
        ("n/a", "a log-likelihood is not a number: n/a"),
    ],
)
def test_a_log_likelihood_that_is_not_finite_and_at_most_zero_refuses_the_file(
    project, value, expected
):
    logs(
        project, {"en": [sample(0, [-1.0, -2.0, -3.0, -4.0]), sample(1, [-1.0, value, -3.0, -4.0])]}
    )
    refused(project, "samples_xcloze_en_", "line 2, column filtered_resps", expected)


def test_a_sample_with_more_choices_than_options_is_keyed_a_to_z(project):
    """A harness's task may have 2 to 26 choices: the choices beyond the declared options
    (ABCD) take the next letters; a sample of more than 26 lands with its reason."""
    logs(
        project,
        {
            "en": [
                sample(0, [-1.0, -2.0, -3.0, -4.0, -0.1], target=4),
                sample(1, [-1.0, -0.5]),
                sample(2, [-1.0] * 26 + [-0.1]),
            ]
        },
    )
    land(project)
    answers = landed(project).query("source_file.str.startswith('lm_eval')")
    got = answers.sort_values("item_id")[
        ["item_id", "raw_answer", "chosen_option", "gold_option", "invalid_reason"]
    ]
    assert got.values.tolist() == [
        ["1", "E", "E", "E", None],
        ["2", "B", "B", None, None],
        ["3", "27", None, None, "more than 26 choices"],
    ]
    scores = landed(project, "option_scores").sort_values(["item_id", "presented_position"])
    assert scores.option_key.tolist() == ["A", "B", "C", "D", "E", "A", "B"]


def test_a_sample_log_without_log_likelihoods_or_a_doc_id_is_refused(project):
    logs(project, {"en": [json.dumps({"doc_id": 0, "arguments": {}})]})
    refused(project, "line 1, column filtered_resps: no log-likelihoods in filtered_resps or resps")
    logs(project, {"en": [sample(0, [-1.0] * 4).replace('"doc_id": 0', '"doc_id": 0.5')]})
    refused(project, "line 1, column doc_id: doc_id 0.5 is not a whole number from 0")
    big = sample(0, [-1.0] * 4).replace('"doc_id": 0', '"doc_id": 9223372036854775807')
    logs(project, {"en": [big]})  # its item, doc_id + 1, would be beyond the largest bigint
    refused(
        project, "doc_id 9223372036854775807 is not a whole number from 0 to 9223372036854775806"
    )


def test_a_samples_target_lands_as_the_items_gold_option(project):
    """The gold as the harness logs it: an index from 0 (a number, or its text as
    ``save_results_samples`` writes it), an option's text (without the leading space),
    else a presented letter; through the presented order (DCBA) to the item's own key. No
    target, or a null one: no gold."""
    lls = [-1.0, -2.0, -3.0, -4.0]
    texts = [" Kind", " Calm", " Bold", " Shy"]
    logs(
        project,
        {
            "en": [
                sample(0, lls, texts=texts, target=2),
                sample(1, lls, texts=texts, target="1"),
                sample(2, lls, texts=texts, target="Shy"),
                sample(3, lls, texts=texts, target="B"),
                sample(4, lls, texts=[" A", " B", " C", " D"], target="C"),
                sample(5, lls, texts=texts),
                sample(6, lls, texts=texts, target=None),
                # five choices, four presented keys: not an answer, no gold
                sample(7, [*lls, -5.0], target="4"),
            ]
        },
        order="DCBA",
    )
    land(project)
    answers = landed(project).query("source_file.str.startswith('lm_eval')")
    got = dict(zip(answers.item_id, answers.gold_option, strict=True))
    assert got == {
        "1": "B", "2": "C", "3": "A", "4": "C", "5": "B", "6": None, "7": None, "8": None,
    }  # fmt: skip
    assert landed(project).query("source_file == 'w.csv'").gold_option.isna().all()


def with_acc(line: str, acc: float) -> str:
    """A sample line with the harness's own verdict on it (``acc``)."""
    return json.dumps({**json.loads(line), "acc": acc})


@pytest.mark.parametrize(
    ("acc", "expected"),
    [((1.0, 0.0), {"1": "B", "2": "B"}), ((0.0, 1.0), {"1": "C", "2": "C"})],
    ids=["acc says text", "acc says index"],
)
def test_a_target_in_digits_is_read_as_the_harness_read_it(project, acc, expected):
    """The bug of "Nothing silently wrong, nothing lost": the harness logs every target as
    text, so when the options are numbers a target "2" is both the option "2" and the index
    2. Each sample's ``acc`` (1: the harness's pick is its gold) says which the harness took:
    here the model picks the option "2" (presented second) in sample 1 and the option "1"
    (third) in sample 2."""
    texts = [" 1", " 2", " 1", " 3"]
    logs(
        project,
        {
            "en": [
                with_acc(sample(0, [-2.0, -1.0, -3.0, -4.0], texts=texts, target="2"), acc[0]),
                with_acc(sample(1, [-3.0, -2.0, -1.0, -4.0], texts=texts, target="2"), acc[1]),
            ]
        },
    )
    land(project)
    answers = landed(project).query("source_file.str.startswith('lm_eval')")
    assert dict(zip(answers.item_id, answers.gold_option, strict=True)) == expected


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        (4, "target index 4 is out of range: the sample has 4 option(s), numbered from 0"),
        (-1, "target index -1 is out of range"),
        ("12", "target index 12 is out of range"),
        ("Maybe", "target Maybe is neither an option's index (from 0), its text, nor its letter"),
        ("E", "target E is neither an option's index"),
        ([0, 1], "target [0,1] is not one option's index or text"),
        (1.5, "target 1.5 is not one option's index or text"),
    ],
    ids=["index", "negative", "index as text", "text", "letter", "several", "fraction"],
)
def test_a_target_that_names_no_option_refuses_the_file(project, target, expected):
    logs(project, {"en": [sample(0, [-1.0] * 4, target=0), sample(1, [-1.0] * 4, target=target)]})
    refused(project, "samples_xcloze_en_", "line 2, column target", expected)


def test_the_results_file_gives_the_runs_provenance(project):
    logs(project, {"en": [sample(0, [-1.0, -2.0, -3.0, -4.0])]})
    results = {
        "config": {"model": "hf", "model_args": "pretrained=org/model,revision=abc123"},
        "lm_eval_version": "0.4.9",
        "n-shot": {"xcloze_en": 5},
        "task_hashes": {"xcloze_en": "f00d"},
    }
    write(
        mcq(project) / "answer_sources" / "lm_eval" / "org__model" / "results_2025.json",
        json.dumps(results),
    )
    land(project)
    run = landed(project, "runs").query("harness == 'lm_eval'").iloc[0]
    assert (run.model, run.model_revision, run.harness_version, run.n_fewshot) == (
        "Org Model",
        "abc123",
        "0.4.9",
        5,
    )
    assert list(run.task_hashes) == [("xcloze_en", "f00d")]


@pytest.mark.parametrize(
    ("delimiter", "texts", "expected"),
    [
        (None, [" Kind", " Calm"], [4, 4]),  # no results file: the harness's default, a space
        ("", [" Kind", "Calm"], [5, 4]),  # no delimiter: a leading space is the option's own
        ("\n", ["\nKind", "\n Calm"], [4, 5]),
    ],
    ids=["default space", "none", "newline"],
)
def test_the_options_texts_drop_the_delimiter_the_results_file_records(
    project, delimiter, texts, expected
):
    """The bug of "Nothing silently wrong, nothing lost": a space was taken off every
    continuation whatever the task's ``target_delimiter``, so a task without one (Italian
    lm-eval tasks) got acc_norm over lengths one character short. The delimiter is the one
    the results file records for the task, removed once."""
    logs(project, {"en": [sample(0, [-1.0, -2.0], texts=texts, target=1)]})
    if delimiter is not None:
        results = {"configs": {"xcloze_en": {"task": "xcloze_en", "target_delimiter": delimiter}}}
        write(
            mcq(project) / "answer_sources" / "lm_eval" / "org__model" / "results_2025.json",
            json.dumps(results),
        )
    land(project)
    scores = landed(project, "option_scores")
    assert scores.option_chars.tolist() == expected


# -------------------------------------------------------------------------------- items


def land_order_control(project: Path, shuffled: str, registry: str) -> pd.DataFrame:
    """Land with ``shuffled`` as the order-control file en_shfl.csv and ``registry`` as the
    item registry's lines: the landed items."""
    write(mcq(project) / "items" / "en_shfl.csv", shuffled)
    item_files(project, registry)
    land(project)
    return landed_items(project)


def test_items_land_with_english_domains_and_an_order_control_file_lands_once(project):
    shuffled = (
        "Domain,Prompt,D,C,B,A\nHealth,A nurse is [ADJ].,Shy,Bold,Calm,Kind\n"
        "Art,A painter likes [ADJ].,Gray,Green,Blue,Red\n"
    )
    frame = land_order_control(
        project, shuffled, "en.csv,en,base,\nit.csv,it,base,\nen_shfl.csv,en,shuffled,\n"
    )
    assert len(frame) == 16 and set(frame.source_file) == {"en.csv", "it.csv"}
    it_1 = frame.query("language == 'it' and item_id == '1'")
    assert it_1.option_text.tolist() == ["Gentile", "Calmo", "Audace", "Timido"]
    assert set(it_1.domain) == {"Health"}
    write(mcq(project) / "items" / "en_shfl.csv", shuffled.replace("Calm", "Quiet"))
    with pytest.raises(
        ConcordError,
        match="en.csv row 1 and en_shfl.csv row 1 give item 1 "
        r"\(en\), option B a different option text",
    ):
        land(project)


def test_an_item_files_gold_column_lands_on_every_option_of_the_item(project):
    """The registry names the column; its cell is the item's own key (blank: no gold), and
    an order-control copy of the file must give the same gold."""
    write(
        mcq(project) / "items" / "en.csv",
        "Domain,Prompt,A,B,C,D,Answer\nHealth,A nurse is [ADJ].,Kind,Calm,Bold,Shy,C\n"
        "Art,A painter likes [ADJ].,Red,Blue,Green,Gray,\n",
    )
    shuffled = (
        "Domain,Prompt,D,C,B,A,Answer\nHealth,A nurse is [ADJ].,Shy,Bold,Calm,Kind,C\n"
        "Art,A painter likes [ADJ].,Gray,Green,Blue,Red,\n"
    )
    frame = land_order_control(
        project,
        shuffled,
        "en.csv,en,base,Answer\nit.csv,it,base,\nen_shfl.csv,en,shuffled,Answer\n",
    )
    by_item = frame.groupby(["language", "item_id"]).gold.agg(lambda g: set(g.fillna("-")))
    assert by_item.to_dict() == {
        ("en", "1"): {"C"}, ("en", "2"): {"-"}, ("it", "1"): {"-"}, ("it", "2"): {"-"},
    }  # fmt: skip
    shutil.rmtree(project.parent / "landing")
    write(mcq(project) / "items" / "en_shfl.csv", shuffled.replace(",C\n", ",B\n"))
    refused(
        project,
        "en.csv row 1 and en_shfl.csv row 1 give item 1 (en), option A a different gold",
    )
    write(mcq(project) / "items" / "en_shfl.csv", shuffled.replace(",C\n", ",c\n"))
    refused(
        project,
        "en_shfl.csv: row 1, column Answer: gold 'c' is not one of the options A, B, C, D",
    )
    item_files(project, "en.csv,en,base,Gold\nit.csv,it,base,\nen_shfl.csv,en,shuffled,\n")
    refused(project, "en.csv, header row: missing column(s) Gold")


def test_an_item_files_gold_that_names_a_blank_option_is_refused(project):
    """A blank option text is an option the item does not have (probe mcq scores the item
    without it): a gold naming it is refused naming row and column, as probe mcq refuses
    the same file."""
    write(
        mcq(project) / "items" / "en.csv",
        "Domain,Prompt,A,B,C,D,Answer\nHealth,A nurse is [ADJ].,Kind,Calm,Bold,Shy,C\n"
        "Art,A painter likes [ADJ].,Red,Blue,Green, ,D\n",
    )
    item_files(project, "en.csv,en,base,Answer\nit.csv,it,base,\n")
    refused(
        project,
        "en.csv: row 2, column Answer: gold D names option D, which is blank in this file",
    )


def test_a_long_files_gold_column_lands_as_each_answers_gold_option(project):
    header = "model,run,item_id,language,answer,gold"
    sources(
        project,
        "g.csv,long,,,,,,,\n",
        **{"g.csv": long_csv("M2,base,1,en,A,C", "M2,base,2,en,B,", header=header)},
    )
    land(project)
    answers = landed(project).query("source_file == 'g.csv'").sort_values("item_id")
    assert answers.gold_option.tolist() == ["C", None]
    shutil.rmtree(project.parent / "landing")
    sources(
        project,
        "g.csv,long,,,,,,,\n",
        **{"g.csv": long_csv("M2,base,1,en,A,C", "M2,base,2,en,B,E", header=header)},
    )
    refused(project, "g.csv: row 2, column gold: gold 'E' is not one of the options A, B, C, D")


# ------------------------------------------------------------- identities and the writer


def test_landing_again_finds_the_same_runs_and_rewrites_only_what_changed(project):
    first = land(project)
    folder = project.parent / "landing" / "mcq"
    (run,) = folder.glob("run_id=*")
    assert run.name.startswith("run_id=m--base--") and len(run.name) == len("run_id=m--base--") + 8
    stamp = (run / "answers.parquet").stat().st_mtime_ns
    second = land(project)
    assert [o.status for o in second.outcomes] == ["unchanged", "unchanged"]
    assert [o.folder for o in second.outcomes] == [o.folder for o in first.outcomes]
    assert (run / "answers.parquet").stat().st_mtime_ns == stamp
    wide(project, rows=[WIDE_ROWS[0], WIDE_ROWS[1].replace(",C,D", ",A,D")])
    third = land(project)
    assert third.status_of(f"mcq/{run.name}") == "replaced"
    assert landed(project).chosen_option.tolist() == ["B", "A", "A", "D"]
    assert not list(folder.glob(".*")), "a hidden folder was left behind"
    registry(project, "")
    (mcq(project) / "answers" / "w.csv").unlink()
    assert land(project).status_of(f"mcq/{run.name}") == "removed"
    # no run left: the area's empty tables, which Spark can read (docs/landing.md)
    assert [p.name for p in folder.iterdir()] == ["run_id=_empty"]


def test_a_wide_run_lands_again_and_is_checked_again_when_its_item_files_change(project):
    """A wide file's rows are checked against the item files' prompts and its task's
    languages come from them: an unchanged wide file is landed again (and checked again)
    when an item file changes or is unregistered, as a fresh landing of the same inputs
    would; its run is not kept as it was."""
    wide(
        project,
        header=HEADER + ",Prompt_EN",
        rows=[WIDE_ROWS[0] + ",A nurse is [ADJ].", WIDE_ROWS[1] + ",A painter likes [ADJ]."],
    )
    land(project)
    (run,) = (project.parent / "landing" / "mcq").glob("run_id=*")
    # the Italian item file unregistered: the run lands again from the new item files
    italian = (mcq(project) / "items" / "it.csv").rename(project.parent / "it.csv")
    item_files(project, "en.csv,en,base,\n")
    assert land(project).status_of(f"mcq/{run.name}") == "replaced"
    # an English prompt changed: the unchanged wide file's row 2 is no longer that item
    italian.rename(mcq(project) / "items" / "it.csv")
    item_files(project, "en.csv,en,base,\nit.csv,it,base,\n")
    items = mcq(project) / "items" / "en.csv"
    items.write_text(ITEMS["en.csv"].replace("A painter likes", "A baker likes"), "utf-8")
    expected = "w.csv: row 2, column Prompt_EN: the prompt is not item 2"
    with pytest.raises(ConcordError, match=expected):
        land(project)


def test_the_same_bytes_under_two_names_land_once(project):
    shutil.copyfile(mcq(project) / "answers" / "w.csv", mcq(project) / "answers" / "w2.csv")
    registry(project, "w.csv,M,P,base,ABCD\nw2.csv,M,P,base,ABCD\n")
    report = land(project)
    assert len(landed(project)) == 4
    assert report.notes == ["w2.csv: the same bytes as w.csv, read the same way; landed once"]


def test_a_sample_log_with_the_same_bytes_as_another_languages_log_is_refused(project):
    """A log copied under another language's name (one task_pattern line reads both) is no
    second language: landing it once dropped the other language and published agreement of
    100 %; landing it twice would compare one model's answers with themselves."""
    english = [sample(0, [-1.0, -2.0, -3.0, -4.0]), sample(1, [-2.0, -1.0, -3.0, -4.0])]
    logs(project, {"en": english})
    log = mcq(project) / "answer_sources" / LOG.format(lang="en")
    shutil.copyfile(log, log.with_name(log.name.replace("_en_", "_it_")))
    write(
        mcq(project) / "mcq_answer_sources.csv",
        SOURCES_HEADER + "lm_eval/org__model/samples_*.jsonl,lm_eval,Org Model,base,,,,auto,\n",
    )
    refused(
        project,
        "samples_xcloze_it_2025-05-05T10-00-00.123456.jsonl (task xcloze, language it) has the "
        "same bytes as lm_eval/org__model/samples_xcloze_en_",
        "(task xcloze, language en): one log cannot be the answers of two tasks or languages",
    )


def test_a_run_that_is_another_runs_model_under_an_alias_is_refused_naming_both(project):
    """A long file of model ``m-hub`` (an alias of M, the wide file's model) and variant
    base claims the identity of the wide file's run: refused by the reader naming both
    sources, before anything lands (a dbt test after the build named neither file)."""
    models = Path("models") / "staging" / "models" / "_models__sources.yml"
    shutil.copyfile(PROJECT_ROOT / models, write(project / models, ""))
    write(project / "seeds" / "models" / "model_aliases.csv", "spelling,model\nm-hub,M\n")
    sources(project, "a.csv,long,m-hub,base,,,,,\n", **{"a.csv": long_csv(",,1,en,A")})
    refused(
        project,
        "seeds/mcq/answer_sources (model m-hub) and seeds/mcq/answers/w.csv (model M) are both "
        "model M, variant base (seeds/models/model_aliases.csv): the marts would hold one model "
        "twice",
    )
    sources(project, "a.csv,long,m-hub,second,,,,,\n")  # another variant: two runs of M
    assert {o.status for o in land(project).outcomes} == {"landed"}


def test_nothing_is_written_through_a_link(project, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (project.parent / "landing").mkdir()
    os.symlink(outside, project.parent / "landing" / "mcq")
    with pytest.raises(ConcordError, match="is a symbolic link"):
        land(project)
    assert not list(outside.iterdir())


def test_a_landing_cut_off_between_its_renames_is_recovered(project):
    land(project)
    folder = project.parent / "landing" / "mcq"
    (run,) = folder.glob("run_id=*")
    run.rename(folder / f".old-{run.name}-0")  # the state a kill between the renames leaves
    wide(project, rows=[WIDE_ROWS[0], WIDE_ROWS[1].replace(",C,D", ",A,D")])
    assert land(project).status_of(f"mcq/{run.name}") == "replaced"
    assert [p.name for p in folder.iterdir()] == [run.name]


def test_what_a_killed_landing_leaves_is_resolved_before_the_next_one_reads(project):
    """A landing or probe run killed while it wrote leaves hidden folders: an unfinished
    write (``.tmp-``), removal (``.removed-``) or spill (``.spill-``) is deleted, and a
    replacement cut off after its folder was renamed aside (``.old-``) is put back, by the
    next holder of the warehouse lock, before anything reads the landing; no later landing
    leaves them behind."""
    land(project)
    landing = project.parent / "landing"
    (run,) = (landing / "mcq").glob("run_id=*")
    debris = [
        landing / "mcq" / f".tmp-{run.name}-{'a' * 32}",
        landing / "mcq" / f".removed-run_id=gone-{'b' * 32}",
        landing / "items" / f".tmp-task=xcloze-{'c' * 32}",
        landing / ".spill-k2j4h5",
        landing / "probe" / f".tmp-run_id=probe-1-{'d' * 32}",
    ]
    for folder in debris:
        write(folder / "answers.parquet", b"PAR1 cut short")
    kept = run.rename(landing / "mcq" / f".old-{run.name}-{'e' * 32}")
    assert [o.status for o in land(project).outcomes] == ["unchanged", "unchanged"]
    assert run.is_dir() and not kept.exists()
    hidden = [p for p in landing.rglob(".*") if p.name != ".concord.lock"]
    assert hidden == [], hidden


def test_a_landed_folder_replaced_by_a_file_is_refused_before_anything_is_written(project):
    """A run's folder replaced by a plain file (or a link) is not the reader's: refused in
    one line naming it, before anything is renamed or written (it was renamed aside, then
    the landing stopped on NotADirectoryError with a hidden folder left for good)."""
    land(project)
    landing = project.parent / "landing"
    (run,) = (landing / "mcq").glob("run_id=*")
    shutil.rmtree(run)
    run.write_text("not a run")
    wide(project, rows=[WIDE_ROWS[0], WIDE_ROWS[1].replace(",C,D", ",A,D")])
    before = landing_tree(landing)
    del before[".concord.lock"]  # who holds the lock, rewritten by each holder
    with pytest.raises(ConcordError) as caught:
        land(project)
    assert caught.value.message == (
        f"{run}: not a folder, where the landing holds only the folders the reader and the "
        "probe write (a run or a table's folder)"
    )
    assert "move it out of the landing folder" in caught.value.hint
    assert {k: v for k, v in landing_tree(landing).items() if k != ".concord.lock"} == before
    run.unlink()
    assert land(project).status_of(f"mcq/{run.name}") == "landed"


# ------------------------------------------------------------------------- the command


def test_the_command_prints_one_line_per_folder_and_refuses_in_one_line(
    project, capsys, monkeypatch
):
    from concord_io.cli import main as concord

    monkeypatch.setenv("DBT_PROJECT_DIR", str(project))  # restored after: --project-dir sets it
    command = ["--project-dir", str(project), "land", "--landing", str(project.parent / "landing")]
    with pytest.raises(SystemExit) as exit_:
        concord(command)
    assert exit_.value.code == 0
    out = capsys.readouterr().out.splitlines()
    # the five seed files of the study (its registries, domain map and task languages), its
    # run and items
    assert len(out) == 7
    assert out[0].startswith("landed    seeds/seed=mcq_answer_registry  1 row from")
    assert out[5].startswith("landed    mcq/run_id=m--base--")
    registry(project, "w.csv,M,P,base,DCBB\n")
    with pytest.raises(SystemExit) as exit_:
        concord(command)
    err = capsys.readouterr().err.splitlines()
    assert exit_.value.code == 2 and len(err) == 2 and "DCBB is not a permutation" in err[0]


# ---------------------------------------------------------- the shipped seeds, round trip


def test_the_shipped_study_lands_as_the_warehouse_reads_it(tmp_path, capsys):
    """`concord land`: every shipped answer file lands as one run of 180 answers, all valid,
    each the letter the file holds mapped through its presented order, as
    test_mcq_warehouse.py reads them with pandas alone (and as int_mcq_answers_normalised
    holds them). GPT-4o's base run agrees in all three languages on 30 of 60 items, the
    study's published figure."""
    from concord_io.cli import main as concord

    landing = tmp_path / "landing"
    with pytest.raises(SystemExit) as exit_:
        concord(["land", "--landing", str(landing)])
    # one line per folder: the 14 seed files, the 8 runs and the items
    assert exit_.value.code == 0 and len(capsys.readouterr().out.splitlines()) == 14 + 9
    runs = pd.concat([pq.read_table(p).to_pandas() for p in landing.glob("mcq/*/runs.parquet")])
    answers = pd.concat(
        [pq.read_table(p).to_pandas() for p in landing.glob("mcq/*/answers.parquet")]
    ).merge(runs[["run_id", "model", "variant", "presented_option_order"]], on="run_id")
    registry = pd.read_csv(SEEDS / "mcq_answer_registry.csv")
    assert len(runs) == len(registry) == 8
    expected = []
    for line in registry.itertuples():
        frame = pd.read_csv(SEEDS / "answers" / line.file, encoding="utf-8-sig", dtype=str)
        for lang in ("en", "it", "fa"):
            letters = frame[f"{line.prefix}_{lang.upper()}"].str.strip().str.upper()
            original = letters.map(dict(zip("ABCD", line.presented_option_order, strict=True)))
            expected += [
                (line.model, line.run, str(i), lang, o)
                for i, o in zip(np.arange(1, len(frame) + 1), original, strict=True)
            ]
    got = answers[["model", "variant", "item_id", "language", "chosen_option"]]
    assert sorted(map(tuple, got.values.tolist())) == sorted(expected)
    assert answers.invalid_reason.isna().all()
    gpt = answers.query("model == 'GPT-4o' and variant == 'base'").pivot(
        index="item_id", columns="language", values="chosen_option"
    )
    assert ((gpt.en == gpt.it) & (gpt.it == gpt.fa)).sum() == 30
    items = pq.read_table(landing / "items" / "task=xcloze" / "items.parquet")
    assert items.num_rows == 60 * 3 * 4


def test_a_jsonl_record_without_a_required_key_is_refused_as_a_missing_column(project):
    sources(
        project,
        "a.jsonl,long,M2,base,,,,,\n",
        **{"a.jsonl": '{"item_id": "1", "language": "en", "Answer": "A"}\n'},
    )
    refused(project, "a.jsonl: line 1, column answer: no key answer in the JSON object")


def test_the_files_of_one_run_present_the_options_in_one_order(project):
    sources(
        project,
        "a.csv,long,M2,base,,ABCD,,,\nb.csv,long,M2,base,,DCBA,,,\n",
        **{"a.csv": long_csv("M2,base,1,en,A"), "b.csv": long_csv("M2,base,2,en,A")},
    )
    refused(project, "b.csv: run m2--base--", "already has presented_option_order ABCD")


# ------------------------------------- the same messages as the dbt build's bad-input cases


@pytest.fixture
def shipped(tmp_path) -> Path:
    """The shipped study's files in a throw-away project (what the reader reads)."""
    root = tmp_path / "shipped"
    shutil.copytree(SEEDS, root / "seeds" / "mcq")
    for part in ("dbt_project.yml", "models/staging/mcq/_mcq__sources.yml"):
        write(root / part, (PROJECT_ROOT / part).read_text(encoding="utf-8"))
    return root


def latin1_item_file(project: Path) -> None:
    path = project / "seeds" / "mcq" / "items" / "Mid.csv"
    path.write_bytes(path.read_text(encoding="utf-8-sig").encode("latin-1", errors="replace"))


CASES = {
    **MCQ_FAILURES,
    # tests/bad_input/cases.yml, item_file_latin1
    "Latin-1 item file": (latin1_item_file, ["Mid.csv", "not UTF-8", "is on line 2"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_reader_refuses_the_dbt_builds_bad_input_cases_with_their_messages(case, shipped):
    """Every failure case of test_mcq_bad_input.py (and the corpus's item file case),
    applied to the shipped files: the reader refuses it in one line holding every text the
    dbt build's message holds."""
    mutate, expected = CASES[case]
    mutate(shipped)
    refused(shipped, *expected)


def test_a_landing_folder_that_is_a_file_or_in_a_serving_folder_is_refused(project, tmp_path):
    """Checked before anything is read or written: published versions are never written
    again, and a file named as the landing folder is not a folder."""
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("x")
    with pytest.raises(ConcordError, match="is a file, not a folder"):
        land_mcq(project, a_file)
    serving = tmp_path / "serving"
    serving.mkdir()
    (serving / "published.json").write_text('{"versions": []}')
    with pytest.raises(ConcordError, match="lies in the serving folder"):
        land_mcq(project, serving / "landing")
    assert sorted(p.name for p in serving.iterdir()) == ["published.json"]


def test_an_unchanged_wide_file_is_not_read_again(project, monkeypatch):
    """A wide file is one run whose fingerprint is known before it is parsed (its bytes'
    hash, its registry line, the study's context): landing it again costs a hash, not a
    parse; a changed file is parsed and lands again."""
    first = land(project)
    assert [o.status for o in first.outcomes if o.folder.startswith("mcq/")] == ["landed"]

    def no_parse(*args, **kwargs):
        raise AssertionError("an unchanged wide file was parsed again")

    monkeypatch.setattr("concord_io.landing.mcq.read_wide", no_parse)
    again = land(project)
    assert [o.status for o in again.outcomes] == ["unchanged", "unchanged"]
    monkeypatch.undo()
    wide = next((mcq(project) / "answers").glob("*.csv"))
    wide.write_bytes(wide.read_bytes().replace(b",C,D\n", b",C,C\n"))  # item 2's answer in it
    changed = land(project)
    assert [o.status for o in changed.outcomes if o.folder.startswith("mcq/")] == ["replaced"]


@pytest.mark.parametrize("name", ["a.parquet", "a.csv", "a.jsonl"])
def test_an_answer_file_that_is_a_fifo_is_refused_at_once(project, name):
    """Names are not identities: a registered answer file is read only if it is a regular
    file (a FIFO would hang the landing)."""
    import signal

    sources(project, f"{name},long,M,base,,,,,\n")
    os.mkfifo(mcq(project) / "answer_sources" / name)
    signal.alarm(20)
    try:
        refused(project, f"{name}: is a FIFO (named pipe), not a regular file; nothing was read")
    finally:
        signal.alarm(0)


def test_a_compressed_log_is_named_as_what_it_is_not_as_missing(project):
    """A registered ``.jsonl.gz`` exists: it is refused as a file the reader does not read,
    with what to do, never reported as missing."""
    sources(project, "logs/*.jsonl*,long,M,base,,,,,\n")
    write(mcq(project) / "answer_sources" / "logs" / "a.jsonl.gz", b"\x1f\x8b")
    refused(project, "logs/*.jsonl* matches logs/a.jsonl.gz, which is not a file the reader reads")


def test_a_registered_folder_that_is_a_link_is_named_as_a_link_not_as_missing(project, tmp_path):
    """A sub-folder of the answer sources that is a symbolic link: the reader lists the
    folder without following links, and says so, naming the link and where it points."""
    elsewhere = write(tmp_path / "elsewhere" / "a.csv", long_csv("M2,base,1,en,A")).parent
    sources(project, "logs/a.csv,long,,,,,,,\n")
    os.symlink(elsewhere, mcq(project) / "answer_sources" / "logs")
    refused(
        project,
        "mcq_answer_sources: logs/a.csv lies in ",
        f"answer_sources/logs, a symbolic link to {elsewhere}: the reader does not follow "
        "linked folders",
    )


@pytest.mark.parametrize("swapped", [False, True], ids=["in order", "rows swapped"])
def test_a_wide_files_prompts_are_checked_against_the_item_files(project, swapped):
    """The bug of "Nothing silently wrong, nothing lost": a wide file's rows are items by
    position, and rows out of the item files' order were counted as the other item's
    answers. Where the file gives its prompts, each must be its item's in the item files."""
    prompts = [("A nurse is [ADJ].", "Un infermiere è [AGG]."), ("A painter likes [ADJ].",
               "Un pittore ama [AGG].")]  # fmt: skip
    rows = [f"{row},{en},{it}" for row, (en, it) in zip(WIDE_ROWS, prompts, strict=True)]
    wide(project, HEADER + ",Prompt_EN,Prompt_IT", rows[::-1] if swapped else rows)
    if swapped:
        refused(
            project,
            "w.csv: row 1, column Prompt_EN: the prompt is not item 1's in the item files "
            "('A painter likes [ADJ].'; the item files: 'A nurse is [ADJ].')",
        )
    else:
        land(project)
        assert len(landed(project).query("source_file == 'w.csv'")) == 4


@pytest.mark.parametrize("damage", ["answers lost", "quarantine from another landing"])
def test_a_folder_missing_a_table_is_landed_again_not_reported_unchanged(project, damage):
    """dbt's remedy for a landed folder without one of its tables is "land again": the reader
    checks every table of a folder it would leave unchanged, so that remedy works."""
    land(project)
    (run,) = (project.parent / "landing" / "mcq").glob("run_id=*")
    expected = landed(project)
    if damage == "answers lost":
        (run / "answers.parquet").unlink()
    else:  # the file's fingerprint is another landing's
        table = pq.read_table(run / "quarantine.parquet")
        pq.write_table(table.replace_schema_metadata({b"concord.fingerprint": b"older"}),
                       run / "quarantine.parquet")  # fmt: skip
    again = land(project)
    assert again.status_of(f"mcq/{run.name}") == "replaced"
    pd.testing.assert_frame_equal(landed(project), expected)
    assert land(project).status_of(f"mcq/{run.name}") == "unchanged"
