"""Exports from the serving file (concord_io.export): one stable file per mart with its column
descriptions, values equal to the published marts, and cells that a spreadsheet would run as a
formula neutralised (OWASP's CSV-injection guidance) in CSV and written as strings in xlsx.
Expected values are read from the build database or from a hand-made serving file, never
through concord_io.export."""

from __future__ import annotations

import csv
import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest

from concord_io.errors import ConcordError
from concord_io.export import PROBE_EXPORTS, export_marts, export_probe
from concord_io.publish import CURRENT_DB, publish

FORMULAS = ["=1+1", "+1+1", "-1+1", "@SUM(A1)", "\tx", "\rx", '=HYPERLINK("http://x")']
SAFE = ["plain", 'O\'Brien; "Bobby"', "1-2", " =not first", "محمد"]
XLSX = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


@pytest.fixture
def nasty_serving(tmp_path) -> Path:
    """A serving-like file with text cells that start with formula characters, a negative
    number, NULLs and a list, with table and column comments."""
    path = tmp_path / "serving" / CURRENT_DB
    path.parent.mkdir()
    with duckdb.connect(str(path)) as con:
        con.execute("create schema marts")
        con.execute(
            "create table marts.nasty (id integer, label varchar, amount double, tags varchar[])"
        )
        texts = FORMULAS + SAFE
        for i, text in enumerate(texts):
            con.execute(
                "insert into marts.nasty values (?, ?, ?, ?)",
                [i, text, -1.5 * i if i % 2 else None, [text, "b"]],
            )
        con.execute("comment on table marts.nasty is 'Rows with nasty text.'")
        con.execute(
            "comment on column marts.nasty.label is '=a description that looks like a formula'"
        )
        con.execute("comment on column marts.nasty.amount is 'An amount, negative allowed.'")
    return path


def read_csv_cells(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def test_csv_neutralises_formula_cells_and_keeps_numbers(nasty_serving, tmp_path):
    out = tmp_path / "out"
    written = export_marts("csv", ["nasty"], out, nasty_serving)
    assert [p.name for p in written] == ["nasty.csv", "nasty.columns.csv"]
    rows = read_csv_cells(out / "nasty.csv")
    assert rows[0] == ["id", "label", "amount", "tags"]
    labels = [r[1] for r in rows[1:]]
    assert labels == ["'" + t for t in FORMULAS] + SAFE
    # no cell of the file starts with a formula character, whatever its column
    for row in rows:
        for cell in row:
            if cell.startswith(("=", "+", "@", "\t", "\r")):
                raise AssertionError(f"formula cell {cell!r}")
    # text is quoted, numbers are bare: a negative number stays a number
    raw = (out / "nasty.csv").read_text(encoding="utf-8").splitlines()
    assert raw[2].startswith('1,"\'+1+1",-1.5,')
    amounts = [r[2] for r in rows[1:]]
    assert amounts[1] == "-1.5" and amounts[0] == ""
    # the sidecar describes the columns, neutralised as well
    sidecar = read_csv_cells(out / "nasty.columns.csv")
    assert sidecar[0] == ["column", "type", "description"]
    assert sidecar[2] == ["label", "VARCHAR", "'=a description that looks like a formula"]


def test_xlsx_writes_text_as_strings_never_formulas(nasty_serving, tmp_path):
    out = tmp_path / "out"
    (path,) = export_marts("xlsx", ["nasty"], out, nasty_serving)
    assert path == out / "nasty.xlsx"
    with zipfile.ZipFile(path) as book:
        names = book.namelist()
        sheets = sorted(n for n in names if n.startswith("xl/worksheets/sheet"))
        shared = ElementTree.fromstring(book.read("xl/sharedStrings.xml"))
        # OOXML writes control characters as _xHHHH_ escapes (ECMA-376 ST_Xstring)
        strings = [
            re.sub(r"_x([0-9A-F]{4})_", lambda m: chr(int(m[1], 16)), "".join(t.itertext()))
            for t in shared.iter(f"{XLSX}si")
        ]
        data = ElementTree.fromstring(book.read(sheets[1]))
        about = ElementTree.fromstring(book.read(sheets[0]))
    for sheet in (about, data):
        assert not list(sheet.iter(f"{XLSX}f")), "a cell was written as a formula"

    def cells(sheet, column):
        found = []
        for c in sheet.iter(f"{XLSX}c"):
            if c.get("r").rstrip("0123456789") == column and c.get("r") != f"{column}1":
                value = c.find(f"{XLSX}v").text
                found.append(strings[int(value)] if c.get("t") == "s" else float(value))
        return found

    # text cells keep their text exactly (a string cell is never evaluated)
    assert cells(data, "B") == FORMULAS + SAFE
    # negative amounts are number cells
    assert cells(data, "C") == [-1.5 * i for i in range(len(FORMULAS + SAFE)) if i % 2]
    # the first sheet lists the columns with their descriptions
    assert "=a description that looks like a formula" in strings
    assert "Rows with nasty text." in strings


def test_parquet_keeps_types_and_descriptions(nasty_serving, tmp_path):
    out = tmp_path / "out"
    export_marts("parquet", None, out, nasty_serving)
    table = pq.read_table(out / "nasty.parquet")
    field = table.schema.field("amount")
    assert field.metadata == {b"description": b"An amount, negative allowed."}
    with duckdb.connect(str(nasty_serving), read_only=True) as con:
        want = con.execute("select * from marts.nasty order by id").df()
    got = table.to_pandas().sort_values("id").reset_index(drop=True)
    assert got["label"].tolist() == want["label"].tolist()
    assert got["amount"].equals(want["amount"])
    assert (out / "nasty.columns.csv").is_file()


def test_flags_and_names_are_checked(nasty_serving, tmp_path):
    with pytest.raises(ConcordError, match=r"--format 'pdf'"):
        export_marts("pdf", None, tmp_path / "out", nasty_serving)
    with pytest.raises(ConcordError, match=r"--mart 'nope' is not a published mart"):
        export_marts("csv", ["nasty", "nope"], tmp_path / "out", nasty_serving)
    with pytest.raises(ConcordError, match="nothing has been published"):
        export_marts("csv", None, tmp_path / "out", tmp_path / "missing")
    with pytest.raises(ConcordError, match="no probe run is published"):
        export_probe(tmp_path / "out", None, nasty_serving)
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_a_mart_too_large_for_xlsx_is_refused_not_truncated(nasty_serving, tmp_path, monkeypatch):
    monkeypatch.setattr("concord_io.export.XLSX_MAX_ROWS", 5)
    with pytest.raises(ConcordError, match=r"--mart nasty: 12 rows, more than an xlsx sheet"):
        export_marts("xlsx", ["nasty"], tmp_path / "out", nasty_serving)
    assert not (tmp_path / "out").exists()


def test_a_mart_name_cannot_escape_the_export_folder(tmp_path):
    serving = tmp_path / "serving.duckdb"
    with duckdb.connect(str(serving)) as con:
        con.execute("create schema marts")
        con.execute('create table marts."../../escaped" as select 1 as a')
    out = tmp_path / "a" / "b" / "out"
    with pytest.raises(ConcordError, match="outside"):
        export_marts("csv", None, out, serving)
    assert not list(tmp_path.rglob("escaped*"))


def test_every_published_mart_exports_with_its_values(warehouse, tmp_path):
    serving = tmp_path / "serving"
    publish(warehouse, serving, warehouse.parent / "target" / "manifest.json")
    out = tmp_path / "out"
    written = export_marts("csv", None, out, serving)
    with duckdb.connect(str(warehouse), read_only=True) as con:
        marts = [
            n
            for (n,) in con.execute(
                "select table_name from information_schema.tables where table_schema = 'marts'"
            ).fetchall()
        ]
        want = con.execute(
            "select model, run, n_items, agreement_pct from marts.mcq_agreement_summary "
            "order by model, run"
        ).df()
        counts = {m: con.execute(f'select count(*) from marts."{m}"').fetchone()[0] for m in marts}
    assert sorted(p.name for p in written) == sorted(
        [f"{m}.csv" for m in marts] + [f"{m}.columns.csv" for m in marts]
    )
    for mart, n in counts.items():
        assert len(pd.read_csv(out / f"{mart}.csv", keep_default_na=False)) == n, mart
    got = pd.read_csv(out / "mcq_agreement_summary.csv")[
        ["model", "run", "n_items", "agreement_pct"]
    ]
    pd.testing.assert_frame_equal(
        got.sort_values(["model", "run"]).reset_index(drop=True), want, check_dtype=False
    )
    # the sidecar carries the manifest's descriptions (as publish wrote them)
    sidecar = pd.read_csv(out / "mcq_agreement_summary.columns.csv")
    assert sidecar.set_index("column").loc["agreement_pct", "description"].strip()
    # a second export replaces the files under the same names
    again = export_marts("csv", ["mcq_agreement_summary"], out, serving)
    assert [p.name for p in again] == [
        "mcq_agreement_summary.csv",
        "mcq_agreement_summary.columns.csv",
    ]
    assert not list(out.glob(".*partial"))


def test_probe_exports_are_the_reference_six():
    assert len(PROBE_EXPORTS) == 6
    assert all(name.endswith(".csv") for name in PROBE_EXPORTS)


@pytest.mark.parametrize("where", [".", "versions/20260101T000000000000Z/parquet", "parquet"])
def test_an_export_is_never_written_into_a_serving_folder(nasty_serving, tmp_path, where):
    """Published versions are immutable: --out in a serving folder (or through its links) is
    refused before anything is written."""
    serving = nasty_serving.parent
    (serving / "published.json").write_text('{"versions": []}')
    version = serving / "versions" / "20260101T000000000000Z"
    (version / "parquet").mkdir(parents=True)
    (serving / "parquet").symlink_to("versions/20260101T000000000000Z/parquet")
    before = sorted(p.relative_to(serving) for p in serving.rglob("*"))
    for export in (
        lambda: export_marts("csv", None, serving / where, nasty_serving),
        lambda: export_probe(serving / where, None, nasty_serving),
    ):
        with pytest.raises(ConcordError, match="lies in the serving folder"):
            export()
    assert sorted(p.relative_to(serving) for p in serving.rglob("*")) == before


def test_an_export_folder_that_is_a_file_is_refused(nasty_serving, tmp_path):
    (tmp_path / "out").write_text("not a folder")
    with pytest.raises(ConcordError, match="is a file, not a folder"):
        export_marts("csv", None, tmp_path / "out", nasty_serving)
