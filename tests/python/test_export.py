"""Exports from the serving file (concord_io.serving.export): one stable file per mart with
its column descriptions, values equal to the published marts, and cells that a spreadsheet
would run as a formula neutralised (OWASP's CSV-injection guidance) in CSV and written as
strings in xlsx. Expected values are read from the build database or from a hand-made
serving file, never through concord_io.serving.export."""

from __future__ import annotations

import csv
import re
import zipfile
from datetime import date, datetime
from pathlib import Path
from xml.etree import ElementTree

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest

from concord_io.errors import ConcordError
from concord_io.serving.export import PROBE_EXPORTS, export_marts, export_probe, sheet_name
from concord_io.serving.publish import CURRENT_DB, publish

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
        data = ElementTree.fromstring(book.read(sheets[0]))  # the data first, then columns
        about = ElementTree.fromstring(book.read(sheets[1]))
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
    # the second sheet lists the columns with their descriptions
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
    monkeypatch.setattr("concord_io.serving.export.XLSX_MAX_ROWS", 5)
    with pytest.raises(ConcordError, match=r"--mart nasty: 12 rows, more than an xlsx sheet"):
        export_marts("xlsx", ["nasty"], tmp_path / "out", nasty_serving)
    assert not (tmp_path / "out").exists()


def test_a_text_too_long_for_an_xlsx_cell_is_refused_not_cut(tmp_path):
    """The bug of "Nothing silently wrong, nothing lost": xlsxwriter cuts a text to 32 767
    characters without a word; the export refuses it and leaves nothing behind, and the
    same text exports whole as CSV."""
    serving = tmp_path / "serving.duckdb"
    with duckdb.connect(str(serving)) as con:
        con.execute("create schema marts")
        con.execute("create table marts.long_text as select 'ok' as label union all "
                    "select repeat('x', 40000)")  # fmt: skip
    refusal = (
        r"--mart long_text: row 2, column label holds a text of 40000 characters, more than "
        r"an xlsx cell holds \(32767\)"
    )
    with pytest.raises(ConcordError, match=refusal):
        export_marts("xlsx", ["long_text"], tmp_path / "out", serving)
    assert not list((tmp_path / "out").glob("*"))
    (written, _) = export_marts("csv", ["long_text"], tmp_path / "out", serving)
    assert max(len(row[0]) for row in read_csv_cells(written)) == 40000


@pytest.mark.parametrize("out", ["/proc/concord-export", "/proc/self"])
def test_an_export_folder_that_cannot_be_written_is_one_line(nasty_serving, out):
    """--out under /proc gave a traceback; it is one line naming the folder."""
    with pytest.raises(ConcordError, match=f"--out {out}: cannot be written"):
        export_marts("csv", ["nasty"], Path(out), nasty_serving)


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
            "select run_id, task, n_items, full_agreement_pct from marts.mcq_agreement_summary_v2 "
            "order by run_id, task"
        ).df()
        counts = {m: con.execute(f'select count(*) from marts."{m}"').fetchone()[0] for m in marts}
    assert sorted(p.name for p in written) == sorted(
        [f"{m}.csv" for m in marts] + [f"{m}.columns.csv" for m in marts]
    )
    for mart, n in counts.items():
        assert len(pd.read_csv(out / f"{mart}.csv", keep_default_na=False)) == n, mart
    got = pd.read_csv(out / "mcq_agreement_summary_v2.csv")[
        ["run_id", "task", "n_items", "full_agreement_pct"]
    ]
    pd.testing.assert_frame_equal(
        got.sort_values(["run_id", "task"]).reset_index(drop=True), want, check_dtype=False
    )
    # the sidecar carries the manifest's descriptions (as publish wrote them)
    sidecar = pd.read_csv(out / "mcq_agreement_summary_v2.columns.csv")
    assert sidecar.set_index("column").loc["full_agreement_pct", "description"].strip()
    # a second export replaces the files under the same names
    again = export_marts("csv", ["mcq_agreement_summary_v2"], out, serving)
    assert [p.name for p in again] == [
        "mcq_agreement_summary_v2.csv",
        "mcq_agreement_summary_v2.columns.csv",
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


# ------------------------------------------------------------------ spreadsheets open well

TYPED = "typed: [odd] name? longer than Excel's limit"
RELS = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"


@pytest.fixture
def typed_serving(tmp_path) -> Path:
    """A mart with a long name that Excel refuses as a sheet name, and dates, timestamps
    (with and without a time zone), times of day, booleans, a long text, a date before
    Excel's first and decimals, plus a row of NULLs."""
    path = tmp_path / "typed" / CURRENT_DB
    path.parent.mkdir()
    with duckdb.connect(str(path)) as con:
        con.execute("create schema marts")
        con.execute(
            f"""create table marts."{TYPED}" as select * from (values
            (date '2026-03-15', timestamp '2026-03-15 13:45:30.25',
             timestamptz '2026-03-15 13:45:30+02', time '06:30:00', true, repeat('x', 300),
             date '1850-01-01', 1, 12.50::decimal(10, 2)),
            (date '1900-01-01', timestamp '1999-12-31 23:59:59',
             timestamptz '2026-01-01 00:00:00+00', time '23:59:59', false, 'short',
             date '2000-01-01', 2, -0.25::decimal(10, 2)),
            (null, null, null, null, null, null, null, 3, null)
            ) t(day, moment, moment_tz, clock, flag, note, old, n, amount)"""
        )
    return path


def read_xlsx(path: Path) -> dict:
    """The workbook's sheets in tab order (name -> parsed XML), its open tab, its shared
    strings and each cell style's number format, read from the file's XML parts."""
    with zipfile.ZipFile(path) as book:
        workbook = ElementTree.fromstring(book.read("xl/workbook.xml"))
        rels = ElementTree.fromstring(book.read("xl/_rels/workbook.xml.rels"))
        files = {r.get("Id"): r.get("Target") for r in rels}
        sheets = {
            s.get("name"): ElementTree.fromstring(book.read("xl/" + files[s.get(f"{RELS}id")]))
            for s in workbook.iter(f"{XLSX}sheet")
        }
        shared = ElementTree.fromstring(book.read("xl/sharedStrings.xml"))
        styles = ElementTree.fromstring(book.read("xl/styles.xml"))
    codes = {f.get("numFmtId"): f.get("formatCode") for f in styles.iter(f"{XLSX}numFmt")}
    xfs = next(styles.iter(f"{XLSX}cellXfs"))
    (view,) = workbook.iter(f"{XLSX}workbookView")
    return {
        "sheets": sheets,
        "active": int(view.get("activeTab", "0")),
        "strings": ["".join(t.itertext()) for t in shared.iter(f"{XLSX}si")],
        "formats": [codes.get(xf.get("numFmtId")) for xf in xfs],
        "defined": {d.get("name"): d.text for d in workbook.iter(f"{XLSX}definedName")},
    }


def cell(book: dict, sheet: str, ref: str) -> tuple[object, str | None]:
    """A cell's value (text, number or boolean) and its number format, or (None, None)."""
    for c in book["sheets"][sheet].iter(f"{XLSX}c"):
        if c.get("r") == ref:
            value = c.find(f"{XLSX}v").text
            style = book["formats"][int(c.get("s", "0"))]
            if c.get("t") == "s":
                return book["strings"][int(value)], style
            if c.get("t") == "b":
                return value == "1", style
            return float(value), style
    return None, None


def serial(moment: datetime) -> float:
    """Excel's serial day number of ``moment`` (1900 date system, after 1900-03-01)."""
    return (moment - datetime(1899, 12, 30)).total_seconds() / 86400


def test_xlsx_opens_on_the_data_sheet_named_after_the_mart(nasty_serving, typed_serving, tmp_path):
    (nasty,) = export_marts("xlsx", None, tmp_path / "a", nasty_serving)
    (typed,) = export_marts("xlsx", None, tmp_path / "b", typed_serving)
    for path, name in ((nasty, "nasty"), (typed, "typed_ _odd_ name_ longer than")):
        book = read_xlsx(path)
        assert list(book["sheets"]) == [name, "columns"]
        assert book["active"] == 0
        data, about = book["sheets"].values()
        assert next(data.iter(f"{XLSX}sheetView")).get("tabSelected") == "1"
        assert next(about.iter(f"{XLSX}sheetView")).get("tabSelected") is None


@pytest.mark.parametrize(
    ("mart", "sheet"),
    [
        ("mcq_agreement_summary", "mcq_agreement_summary"),
        ("a" * 40, "a" * 31),
        ("x[1]:y*z?/w\\v", "x_1__y_z__w_v"),
        ("tab\there", "tab_here"),
        ("'quoted'", "quoted"),
        ("'" + "b" * 29 + " '" + "c" * 5, "b" * 29),  # cut to 31, then trimmed
        ("😀" * 20, "😀" * 15),  # a character beyond the BMP counts two UTF-16 units
        ("History", "data"),  # reserved by Excel
        ("Columns", "data"),  # the workbook's other sheet
        ("''", "data"),
    ],
)
def test_a_sheet_name_is_one_excel_takes(mart, sheet):
    assert sheet_name(mart) == sheet


def test_xlsx_writes_dates_and_timestamps_as_excel_dates(typed_serving, tmp_path):
    (path,) = export_marts("xlsx", None, tmp_path / "out", typed_serving)
    book = read_xlsx(path)
    sheet = next(iter(book["sheets"]))
    assert cell(book, sheet, "A2") == (serial(datetime(2026, 3, 15)), "yyyy-mm-dd")
    assert cell(book, sheet, "A3") == (1.0, "yyyy-mm-dd")  # 1900-01-01 is Excel's day 1
    value, style = cell(book, sheet, "B2")
    assert style == "yyyy-mm-dd hh:mm:ss"
    assert value == pytest.approx(serial(datetime(2026, 3, 15, 13, 45, 30, 250_000)), abs=1e-9)
    # a timestamp with a time zone in UTC, and its format says so
    value, style = cell(book, sheet, "C2")
    assert style == 'yyyy-mm-dd hh:mm:ss "UTC"'
    assert value == pytest.approx(serial(datetime(2026, 3, 15, 11, 45, 30)), abs=1e-9)
    value, style = cell(book, sheet, "D2")
    assert style == "hh:mm:ss" and value == pytest.approx(6.5 / 24)
    assert cell(book, sheet, "E2") == (True, None) and cell(book, sheet, "E3") == (False, None)
    # before Excel's first date: ISO text, not a negative day that Excel shows as ####
    assert cell(book, sheet, "G2") == ("1850-01-01", None)
    assert cell(book, sheet, "G3") == (serial(datetime(2000, 1, 1)), "yyyy-mm-dd")
    assert cell(book, sheet, "I2") == (12.5, None)  # a DECIMAL is a number, not text
    assert cell(book, sheet, "I3") == (-0.25, None)
    assert cell(book, sheet, "A4") == (None, None)  # NULL: an empty cell
    assert date(2026, 3, 15).isoformat() not in book["strings"]


def test_xlsx_header_is_frozen_filtered_and_columns_sized(typed_serving, tmp_path):
    (path,) = export_marts("xlsx", None, tmp_path / "out", typed_serving)
    book = read_xlsx(path)
    name, data = next(iter(book["sheets"].items()))
    (pane,) = data.iter(f"{XLSX}pane")
    assert (pane.get("state"), pane.get("ySplit"), pane.get("topLeftCell")) == (
        "frozen",
        "1",
        "A2",
    )
    assert pane.get("xSplit") is None  # rows frozen, not columns
    # the filter covers the header and every data row (the last one all NULLs but n)
    (autofilter,) = data.iter(f"{XLSX}autoFilter")
    assert autofilter.get("ref") == "A1:I4"
    assert book["defined"]["_xlnm._FilterDatabase"] == f"'{name}'!$A$1:$I$4"
    widths = [float(c.get("width")) for c in data.iter(f"{XLSX}col")]
    assert len(widths) == 9
    assert all(8 <= w <= 61 for w in widths), widths  # bounded, the long text included
    day, moment, moment_tz, clock, flag, note, old, n, amount = widths
    assert note >= 60 and n < 10 and flag < 12
    assert day >= len("2026-03-15") and moment >= len("2026-03-15 13:45:30")
    assert moment_tz >= len("2026-03-15 13:45:30 UTC")
    # the columns sheet has widths too, and no filter or frozen pane of its own
    about = book["sheets"]["columns"]
    assert all(8 <= float(c.get("width")) <= 61 for c in about.iter(f"{XLSX}col"))
    assert not list(about.iter(f"{XLSX}autoFilter"))


def test_an_empty_mart_still_has_its_header_frozen_and_filtered(tmp_path):
    serving = tmp_path / "serving.duckdb"
    with duckdb.connect(str(serving)) as con:
        con.execute("create schema marts")
        con.execute("create table marts.empty (a integer, b varchar)")
    (path,) = export_marts("xlsx", None, tmp_path / "out", serving)
    data = read_xlsx(path)["sheets"]["empty"]
    assert next(data.iter(f"{XLSX}autoFilter")).get("ref") == "A1:B1"
    assert next(data.iter(f"{XLSX}pane")).get("state") == "frozen"


def test_csv_writes_booleans_as_true_and_false(typed_serving, tmp_path):
    out = tmp_path / "out"
    export_marts("csv", None, out, typed_serving)
    csv_path = out / f"{TYPED}.csv"
    lines = csv_path.read_text(encoding="utf-8").splitlines()
    # bare like numbers (a quoted "true" is text to the csv conventions the export follows)
    assert ',true,"' in lines[1] and ',false,"' in lines[2]
    assert "True" not in lines[1] and "False" not in lines[2]
    # read back as booleans by pandas and DuckDB, NULL as missing
    assert pd.read_csv(csv_path)["flag"].tolist()[:2] == [True, False]
    with duckdb.connect() as con:
        rows = con.execute(
            "select typeof(flag), flag from read_csv(?) order by n", [str(csv_path)]
        ).fetchall()
    assert rows == [("BOOLEAN", True), ("BOOLEAN", False), ("BOOLEAN", None)]


def test_a_mart_name_with_a_path_separator_is_refused_in_one_line(tmp_path):
    serving = tmp_path / "serving.duckdb"
    with duckdb.connect(str(serving)) as con:
        con.execute("create schema marts")
        con.execute('create table marts."sub/name" as select 1 as a')
    with pytest.raises(ConcordError, match="a name with a path separator") as error:
        export_marts("xlsx", None, tmp_path / "out", serving)
    assert "\n" not in str(error.value)
    assert not list((tmp_path / "out").rglob("*name*"))
