"""The reader's memory does not grow with a file's size: DuckDB reads a long Parquet file
where it lies (checked in one pass, its answers written by the engine), the records of the
formats parsed in Python wait in DuckDB (the engine's one waiting mechanism, spilling beyond
its memory limit into the landing's hidden spill folder), and a file's content hash is
computed in chunks. These tests make the row groups tiny, and show that a file lands, and is
refused, exactly as when it is one row group."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_landing_reader import land, landed, make_project, mcq, refused, sources

from concord_common.warehouse_lock import LOCK_FILE
from concord_io.errors import ConcordError
from concord_io.landing import sources as source_files
from concord_io.landing.engine import Landing
from concord_io.landing.mcq import DUPLICATE

N_ITEMS = 60  # items 1..60 in en and it: 120 records a run, two runs a file


def records(
    n_items: int = N_ITEMS, models: tuple[str, ...] = ("M2", "M3"), run: str = "base"
) -> dict[str, list]:
    columns: dict[str, list] = {c: [] for c in ("model", "run", "item_id", "language", "answer")}
    for model in models:
        for item in range(1, n_items + 1):
            for language in ("en", "it"):
                columns["model"].append(model)
                columns["run"].append(run)
                columns["item_id"].append(str(item))
                columns["language"].append(language)
                columns["answer"].append("ABCD"[(item + len(language) + len(model)) % 4])
    return columns


def put(project: Path, name: str, columns: dict[str, list], row_group_size: int | None) -> Path:
    path = mcq(project) / "answer_sources" / name
    pq.write_table(pa.table(columns), path, row_group_size=row_group_size)
    if row_group_size:
        assert pq.ParquetFile(path).metadata.num_row_groups > 1
    return path


def landed_tables(landing: Path) -> dict[str, pa.Table]:
    """Every landed table, less ``landed_at`` and ``content_hash`` (the files' bytes differ
    with their row groups) and its metadata (the fingerprint, of the hashes), by its path
    in the landing folder."""
    out = {}
    for path in sorted(landing.glob("*/*/*.parquet")):
        table = pq.read_table(path)
        table = table.drop([c for c in ("landed_at", "content_hash") if c in table.column_names])
        out[str(path.relative_to(landing))] = table.replace_schema_metadata()
    return out


@pytest.fixture
def small(monkeypatch):
    """``small(row_groups)``: the tables the engine held while waiting (name, rows, where
    DuckDB spills them) from now on."""
    held: list[tuple[str, int, str]] = []
    hold = Landing.hold

    def counted(self, table, name=""):
        found = hold(self, table, name)
        (spill,) = self.con.execute("select current_setting('temp_directory')").fetchone()
        held.append((found, table.num_rows, spill))
        return found

    monkeypatch.setattr(Landing, "hold", counted)

    def streaming(_: bool) -> list[tuple[str, int, str]]:
        held.clear()
        return held

    return streaming


# a bad value at ``row`` (1 = the first record) of column ``column``, and the message
BAD = {
    "run": ("run", "bad run", "column run: run 'bad run' is not a name"),
    "no language": ("language", " ", "column language: no language"),
    "item id": ("item_id", "007", "column item_id: '007' is not a canonical positive"),
    "language tag": ("language", "e!n", "column language: 'e!n' is not a valid language tag"),
}


@pytest.mark.parametrize(
    "bad",
    [
        [("item id", 200)],
        [("language tag", 150)],
        # the rules' order decides, then the row: a later rule's record in an earlier batch
        # does not hide an earlier rule's in a later one
        [("no language", 3), ("run", 170)],
        [("language tag", 5), ("item id", 231)],
        [("item id", 4), ("no language", 100), ("no language", 12)],
    ],
    ids=["item id late", "tag late", "rule order", "tag then id", "first of a rule"],
)
def test_a_bad_record_in_a_later_row_group_is_refused_as_in_one_row_group(tmp_path, small, bad):
    columns = records()
    for name, row in bad:
        column, value, _ = BAD[name]
        columns[column][row - 1] = value
    messages = []
    for row_group_size in (None, 10):  # one row group read whole, then many in batches
        small(row_group_size is not None)
        project = make_project(tmp_path / f"groups-{row_group_size}")
        sources(project, "a.parquet,long,,,,,,,\n")
        put(project, "a.parquet", columns, row_group_size)
        messages.append(refused(project))
    assert messages[0] == messages[1]
    name, row = min(bad, key=lambda b: (list(BAD).index(b[0]), b[1]))
    assert f"a.parquet: row {row}, " in messages[0] and BAD[name][2] in messages[0]
    left = (tmp_path / "groups-10" / "landing").glob(".*")
    assert [p.name for p in left] == [LOCK_FILE], "spill files left"  # the lock stays


@pytest.mark.parametrize("languages", [None, ["en"]], ids=["every language", "en only"])
def test_the_same_records_land_alike_in_one_row_group_or_many(tmp_path, small, languages):
    """Two files of one folder, each with two runs, one record of M2 given twice (in two row
    groups of b.parquet) and once more in a.parquet: batches, spill files and row groups do
    not change a landed value, and the duplicates across them are all set aside (with
    ``mcq_languages: [en]``, every other record too, the duplicates' reason first)."""
    first = records()
    second = records(run="base")
    second["model"] = ["M2" if m == "M2" else "M4" for m in second["model"]]
    second["item_id"] = [str(int(i) + N_ITEMS) for i in second["item_id"]]
    for column, value in (("item_id", "5"), ("language", "en")):
        second[column][-1] = second[column][3] = value  # M4's last record: item 5 en
    second["model"][-1] = "M2"
    variables = {"mcq_languages": languages} if languages else None
    landings = []
    for row_group_size in (None, 10):  # one row group read whole, then many in batches
        written = small(row_group_size is not None)
        project = make_project(tmp_path / f"groups-{row_group_size}")
        sources(project, "a.parquet,long,,,,,,,\nb.parquet,long,,,,,,,\n")
        put(project, "a.parquet", first, row_group_size)
        put(project, "b.parquet", second, row_group_size)
        land(project, variables)
        landings.append(landed_tables(project.parent / "landing"))
    # a Parquet file is read where it lies: only the item files' table waits in DuckDB,
    # spilling (beyond its memory limit) into the landing's hidden folder
    assert [name for name, _, _ in written] == ["items"]
    assert all(Path(spill).parent.parent == project.parent / "landing" for _, _, spill in written)
    assert all(Path(spill).parent.name.startswith(".spill-") for _, _, spill in written)
    assert landings[0].keys() == landings[1].keys()
    for name, table in landings[0].items():
        assert table.equals(landings[1][name]), name
    aside = landed(project, "quarantine")
    duplicates = aside[aside.reason == DUPLICATE]
    assert duplicates[["source_file", "source_row"]].values.tolist() == [
        ["a.parquet", 9],
        ["b.parquet", 4],
        ["b.parquet", 240],
    ]
    (m2,) = set(duplicates.run_id)
    answers = landed(project)
    answers = answers[answers.run_id == m2]
    if languages:
        # en: 60 in a.parquet, 62 in b.parquet (two records made en), less the three
        assert set(answers.language) == {"en"} and len(answers) == 2 * N_ITEMS + 2 - 3
        # it: the long files' 4 * 60 less the two made en (the wide file is read in en)
        assert len(aside) == 3 + 4 * N_ITEMS - 2
    else:
        assert len(aside) == 3
        assert len(answers) == 2 * 2 * N_ITEMS - 2  # two of its records set aside, one of M4
    assert answers.source_file.is_monotonic_increasing  # by file, then row, as read


def test_the_content_hash_is_sha256_of_the_files_bytes_read_in_chunks(tmp_path, monkeypatch):
    data = bytes(range(256)) * 40
    (tmp_path / "f.parquet").write_bytes(data)
    monkeypatch.setattr(source_files, "HASH_CHUNK", 1000)

    def whole(self):
        raise AssertionError("the file was read whole")

    monkeypatch.setattr(Path, "read_bytes", whole)
    source = source_files.load(tmp_path, "f.parquet")
    assert source.content_hash == hashlib.sha256(data).hexdigest()


def test_a_landed_parquet_files_content_hash_is_sha256_of_its_bytes(tmp_path, small):
    small(True)
    project = make_project(tmp_path)
    sources(project, "a.parquet,long,,,,,,,\n")
    path = put(project, "a.parquet", records(), 10)
    land(project)
    assert set(landed(project).query("source_file == 'a.parquet'").content_hash) == {
        hashlib.sha256(path.read_bytes()).hexdigest()
    }


def test_a_file_that_changes_after_it_was_hashed_is_refused(tmp_path):
    (tmp_path / "a.csv").write_text("x\n1\n")
    source = source_files.load(tmp_path, "a.csv")
    assert source.read_bytes() == b"x\n1\n"
    source.check_unchanged()
    (tmp_path / "a.csv").write_text("x\n2\n")
    for read in (source.read_bytes, source.check_unchanged):
        with pytest.raises(ConcordError, match="a.csv: the file changed while it was read"):
            read()


def test_a_file_of_several_runs_lands_each_run_whole_whether_or_not_its_runs_can_be_skipped(
    tmp_path,
):
    """A file of several runs is read once per run: by its own model and run columns (DuckDB
    skips the row groups of other runs) where every record gives them as the reader takes
    them, and through the reader's cleaning otherwise (a blank around one model name): the
    same runs land either way, each with all its records."""
    landings = []
    for padded in (False, True):
        project = make_project(tmp_path / f"padded-{padded}")
        sources(project, "a.parquet,long,,,,,,,\n")
        columns = records(models=("M2", "M3", "M4"))
        if padded:
            columns["model"][7] = " M2 "  # M2's eighth record
        put(project, "a.parquet", columns, 10)
        land(project)
        landings.append(landed_tables(project.parent / "landing"))
        answers = landed(project)
        long_runs = answers[answers.source_file == "a.parquet"].groupby("run_id").size()
        assert sorted(long_runs) == [2 * N_ITEMS] * 3
    assert landings[0].keys() == landings[1].keys()
    for name, table in landings[0].items():
        assert table.equals(landings[1][name]), name


def test_a_parsed_files_records_wait_in_duckdb_within_its_limit_and_leave_no_trace(tmp_path, small):
    """A long CSV is parsed in Python: its records wait for their runs as a DuckDB table
    (the engine's one waiting mechanism, counted by DuckDB's memory limit and spilled into
    the landing's hidden folder beyond it), not as an Arrow table no limit counts; the
    spill folder goes when the landing ends."""
    held = small(True)
    project = make_project(tmp_path)
    sources(project, "a.csv,long,,,,,,,\n")
    columns = records()
    lines = [",".join(columns)] + [",".join(row) for row in zip(*columns.values(), strict=True)]
    (mcq(project) / "answer_sources" / "a.csv").write_text("\n".join(lines) + "\n")
    land(project)
    landing = project.parent / "landing"
    assert [name for name, _, _ in held] == ["items", "long_file_1"]
    assert held[1][1] == 4 * N_ITEMS  # the file's records, two runs of 60 items x 2 languages
    assert {Path(spill).parent.parent for _, _, spill in held} == {landing}
    assert sorted(p.name for p in landing.glob(".*")) == [LOCK_FILE]
    assert len(landed(project).query("source_file == 'a.csv'")) == 4 * N_ITEMS
