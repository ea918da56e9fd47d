"""The strict input reader's checks that run outside dbt: `make build` refuses a non-UTF-8
seed before dbt parses the project (dbt's parser would stop with a traceback)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from concord_io.input_encoding import first_bad_line

TEXT = "group,name\nUS,Emily\nIT,Niccolò\n"


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (TEXT.encode("utf-8"), None),
        (b"\xef\xbb\xbf" + TEXT.encode("utf-8"), None),
        (TEXT.encode("latin-1"), 3),
        (TEXT.encode("utf-16"), 1),  # byte order mark FF FE
        (TEXT.encode("utf-16-le"), 1),  # no mark: NUL bytes from the first character
        (b"a\r\nb\r\n\xff", 3),
    ],
)
def test_first_bad_line(data, line):
    assert first_bad_line(data) == line


@pytest.mark.parametrize("encoding", ["latin-1", "utf-16"])
def test_make_build_refuses_a_non_utf8_seed_in_one_line(tmp_path, encoding):
    folder = tmp_path / "seeds" / "probe"
    folder.mkdir(parents=True)
    (folder / "ok.csv").write_text(TEXT, encoding="utf-8")
    (folder / "probe_names.csv").write_bytes(TEXT.encode(encoding))
    result = subprocess.run(
        [sys.executable, "-m", "concord_io.input_encoding", str(tmp_path / "seeds")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    first = result.stderr.splitlines()[0]
    line = 3 if encoding == "latin-1" else 1
    assert first.startswith("error: ") and "probe_names.csv: not UTF-8" in first
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
