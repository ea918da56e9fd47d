"""The strict input reader's checks of a file's bytes and of the seed files, and of the build
database's path: a non-UTF-8 seed is refused in one line, before anything lands."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from concord_io.errors import ConcordError
from concord_io.landing.seeds import read_seeds
from concord_io.landing.sources import read_csv, text_of

TEXT = "group_name,name\nUS,Emily\nIT,Niccolò\n"


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (TEXT.encode("utf-8"), None),
        (b"\xef\xbb\xbf" + TEXT.encode("utf-8"), None),
        (TEXT.encode("latin-1"), "first byte that is not valid UTF-8 is on line 3"),
        (TEXT.encode("utf-16"), "first byte that is not valid UTF-8 is on line 1"),  # mark FF FE
        ("a,b\n1,2\n".encode("utf-16-le"), "contains NUL bytes (a UTF-16 file?)"),  # no mark
        (b"a\r\nb\r\n\xff", "first byte that is not valid UTF-8 is on line 3"),
        (b"", "f.csv: the file is empty"),
    ],
)
def test_a_files_bytes_are_utf8_text_or_refused_naming_the_line(data, problem):
    if problem is None:
        assert text_of(data, "f.csv") == TEXT
    else:
        with pytest.raises(ConcordError, match=re.escape(problem)):
            text_of(data, "f.csv")


SOURCES = """version: 2
sources:
  - name: probe_seeds
    config: {meta: {seed_folder: seeds/probe}}
    tables:
      - name: probe_names
        columns:
          - {name: group_name, data_type: string}
          - {name: name, data_type: string}
      - name: x
        columns:
          - {name: a, data_type: string}
          - {name: b, data_type: string}
"""


def seed_project(folder, files: dict[str, bytes]):
    """A project of seed files: probe_names and x declared by a source of
    models/staging/probe, the files given in seeds/probe, and a data folder of the study's
    (not a seed folder)."""
    (folder / "seeds" / "probe").mkdir(parents=True)
    (folder / "seeds" / "data").mkdir()
    (folder / "models" / "staging" / "probe").mkdir(parents=True)
    (folder / "dbt_project.yml").write_text("name: concord\nseed-paths: []\n")
    (folder / "seeds" / "data" / "answers.csv").write_bytes(TEXT.encode("latin-1"))
    (folder / "models" / "staging" / "probe" / "_probe__sources.yml").write_text(SOURCES)
    for name, data in files.items():
        (folder / "seeds" / "probe" / name).write_bytes(data)
    return folder


def test_every_seed_is_checked_and_every_refused_one_named_on_its_line(tmp_path):
    good = seed_project(
        tmp_path / "good", {"probe_names.csv": TEXT.encode(), "x.csv": b"a,b\n1,2\n"}
    )
    assert sorted(read_seeds(good)) == ["probe_names", "x"]  # not the study's data folder
    bad = seed_project(
        tmp_path / "bad",
        {"probe_names.csv": b"group_name,label\nUS,Emily\n", "x.csv": b"a,b\n1\n"},
    )
    with pytest.raises(ConcordError) as refused:
        read_seeds(bad)
    assert refused.value.message.splitlines() == [
        "seed probe_names (seeds/probe/probe_names.csv), header row: declared column(s) name "
        "missing from the header; header column(s) label not declared in column_types "
        "(header: group_name, label; declared: group_name, name). Rename the column in the "
        "file or declare it",
        "seed x (seeds/probe/x.csv): row 1 (line 2) has 1 fields, the header has 2; first "
        "missing column: b. fix the row; no seed was loaded",
    ]


@pytest.mark.parametrize("encoding", ["latin-1", "utf-16"])
def test_a_non_utf8_seed_is_refused_in_one_line(tmp_path, encoding):
    project = seed_project(
        tmp_path / "project", {"probe_names.csv": TEXT.encode(encoding), "x.csv": b"a,b\n"}
    )
    result = subprocess.run(
        [
            *(sys.executable, "-m", "concord_io.cli", "--project-dir", str(project), "land"),
            *("--landing", str(tmp_path / "landing")),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    first = result.stderr.splitlines()[0]
    line = 3 if encoding == "latin-1" else 1
    assert first.startswith("error: ") and "probe_names.csv): not UTF-8" in first
    assert f"is on line {line}." in first
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (":memory:", "CONCORD_DB_PATH=:memory:: the build database must be a file path"),
        ("md:concord", "CONCORD_DB_PATH=md:concord: the build database must be a file path"),
        ("~/concord.duckdb", "CONCORD_DB_PATH=~/concord.duckdb: '~' is not expanded here"),
        ("{tmp}", "is a folder, not a database file"),
        ("{tmp}/notes.txt", "notes.txt: is not a DuckDB database"),
    ],
)
def test_the_build_database_path_is_checked_for_what_it_is(tmp_path, value, message):
    from concord_io.errors import ConcordError
    from concord_io.paths import prepare_build_db

    (tmp_path / "notes.txt").write_text("not a database")
    with pytest.raises(ConcordError) as refused:
        prepare_build_db(value.format(tmp=tmp_path))
    assert message in refused.value.message


def test_a_new_or_existing_database_file_is_accepted(tmp_path):
    import duckdb

    from concord_io.paths import prepare_build_db

    fresh = tmp_path / "a" / "b" / "concord.duckdb"
    assert prepare_build_db(fresh) == fresh and fresh.parent.is_dir()
    duckdb.connect(str(fresh)).close()
    assert prepare_build_db(fresh) == fresh


@pytest.mark.parametrize("quoted", [False, True], ids=["plain", "quoted"])
def test_a_field_longer_than_arrows_block_is_read_whole(quoted):
    """A 6 MB field gave a traceback (Arrow's parser works in 1 MiB blocks): it is read
    whole, byte for byte."""
    field = b"x" * 6_000_000
    data = b"a,b\n1," + (b'"' + field + b'"' if quoted else field) + b"\n2,y\n"
    table = read_csv(data, "f.csv").table
    assert table.column("b").to_pylist() == [field.decode(), "y"]
