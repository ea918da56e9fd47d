"""The Great Expectations checkpoint (concord_io.quality, suites in quality/suites/): it
passes on the shipped warehouse, and one wrong value in a mart fails the run, with the
failed expectation named on stderr and in the data docs HTML."""

from __future__ import annotations

import hashlib
import html
import json
import shutil

import duckdb
import pytest

from concord_io import quality


@pytest.mark.slow  # importing Great Expectations takes about 10 s
def test_every_suite_is_well_formed_and_names_a_known_expectation():
    import great_expectations.expectations as gxe

    suites = quality.load_suites()
    assert {s.name for s in suites} >= {"mcq_answers", "mcq_agreement_summary", "dq_quarantine"}
    for suite in suites:
        assert suite.relation.split(".")[0] in {"staging", "intermediate", "marts"}
        for kind, kwargs in suite.expectations:
            quality._expectation(gxe, suite, kind, kwargs)  # raises on a bad entry


@pytest.mark.slow
def test_unknown_expectation_is_refused_naming_the_file(tmp_path):
    (tmp_path / "bad.yml").write_text(
        "name: bad\nrelation: marts.x\nexpectations:\n  - expect_nothing_at_all: {column: a}\n"
    )
    import great_expectations.expectations as gxe

    (suite,) = quality.load_suites(tmp_path)
    with pytest.raises(quality.QualityConfigError, match="bad.yml: unknown expectation"):
        quality._expectation(gxe, suite, *suite.expectations[0])


@pytest.fixture(scope="module")
def quality_run(warehouse_quality):
    _, result, out = warehouse_quality  # the session's checkpoint run (conftest)
    return result, out


def test_shipped_warehouse_passes_every_expectation(quality_run, warehouse):
    result, out = quality_run
    assert result.success, result.failed
    assert result.n_expectations == sum(len(s.expectations) for s in quality.load_suites())
    assert result.docs_index.is_file()
    # every suite's result is rendered (a description with the word "format" once made GX's
    # renderer fail on its page), and its page carries the suite's description
    site = out / quality.DOCS_SITE
    suites = quality.load_suites()
    assert {p.name for p in (site / "validations").iterdir()} == {s.name for s in suites}
    for suite in suites:
        page = " ".join((site / "expectations" / f"{suite.name}.html").read_text().split())
        assert html.escape(" ".join(suite.description.split())[:50], quote=False) in page
    # the build file was only read: no write-ahead log left beside it
    assert not warehouse.with_name(warehouse.name + ".wal").exists()
    # the pass is recorded for this exact file, which publish checks
    record = json.loads(quality.quality_record_path(warehouse).read_text())
    assert record["sha256"] == hashlib.sha256(warehouse.read_bytes()).hexdigest()
    assert record["size"] == warehouse.stat().st_size
    assert record["wal_sha256"] is None
    assert quality.check_quality_record(warehouse) == "passed"


def test_a_failed_expectation_fails_the_run_and_the_data_docs_name_it(warehouse, tmp_path, capsys):
    database = tmp_path / "broken.duckdb"
    shutil.copy(warehouse, database)
    with duckdb.connect(str(database)) as con:
        con.execute(
            # a bound dbt does not state (its tests and constraints hold on this file)
            "update marts.mcq_agreement_summary_v2 set full_agreement_ci_high = 130.5 "
            "where model = 'GPT-4o' and variant = 'base'"
        )
    out = tmp_path / "quality"
    quality.quality_record_path(database).write_text("{}")  # a stale record goes
    code = quality.main(["--database", str(database), "--out", str(out)])
    assert code == 1
    assert not quality.quality_record_path(database).exists()
    captured = capsys.readouterr()
    err = captured.err
    # one line per failure, never a traceback (GX once printed one rendering the data docs)
    assert "Traceback" not in captured.out + err
    assert "expectations FAILED" in err
    failed = "mcq_agreement_summary: expect_column_values_to_be_between(full_agreement_ci_high)"
    assert failed in err
    # exactly that one expectation failed
    assert err.count("\n  - ") == 1
    pages = list(
        (out / quality.DOCS_SITE / "validations" / "mcq_agreement_summary").rglob("*.html")
    )
    assert len(pages) == 1
    page = pages[0].read_text(encoding="utf-8")
    assert "full_agreement_ci_high" in page and "130.5" in page
    assert "Failed" in page or "failed" in page


def test_a_change_held_only_in_the_write_ahead_log_voids_the_quality_record(tmp_path):
    """DuckDB replays <file>.wal on every open: a mart changed after the checkpoint, and held
    only in the log, must not be published as "quality passed"."""
    database = tmp_path / "build.duckdb"
    with duckdb.connect(str(database)) as con:
        con.execute("create table t as select 1 as a")
    quality.write_quality_record(database, quality.build_identity(database), 1)
    assert quality.check_quality_record(database) == "passed"

    con = duckdb.connect(str(database))
    con.execute("pragma disable_checkpoint_on_shutdown")
    con.execute("insert into t values (2)")
    con.close()
    assert database.with_name("build.duckdb.wal").stat().st_size > 0
    with pytest.raises(quality.QualityGateError, match="another build of this file"):
        quality.check_quality_record(database)


def test_a_passed_checkpoint_stands_until_a_table_a_suite_reads_changes(
    warehouse_quality, tmp_path, capsys
):
    """A build whose every suite's table and expectations are as the passed checkpoint
    checked them (here, a copy of the build file) gets its quality record without the
    checkpoint running again (its data docs kept as they are); a changed table runs it
    again; a suite's file and the checks' code are part of what a verdict depends on."""
    database, _, session_out = warehouse_quality
    copy, out = tmp_path / "copy.duckdb", tmp_path / "quality"
    shutil.copy(database, copy)
    shutil.copytree(session_out, out)
    marker = out / "gx" / "kept"
    marker.write_text("the data docs of the checkpoint that passed")
    assert quality.main(["--database", str(copy), "--out", str(out)]) == 0
    assert "as the checkpoint of " in capsys.readouterr().out and marker.is_file()
    assert quality.check_quality_record(copy) == "passed"

    with duckdb.connect(str(copy)) as con:
        con.execute("update marts.mcq_agreement_summary_v2 set full_agreement_ci_high = 130.5 "
                    "where model = 'GPT-4o' and variant = 'base'")  # fmt: skip
    assert quality.main(["--database", str(copy), "--out", str(out)]) == 1
    assert not marker.exists() and not (out / quality.CHECKPOINT_STATE).exists()
    assert not quality.quality_record_path(copy).exists()

    (suite,) = [s for s in quality.load_suites() if s.name == "dq_quarantine"]
    table = out / "snapshot" / "dq_quarantine.parquet"
    edited = tmp_path / "dq_quarantine.yml"
    edited.write_bytes(suite.path.read_bytes() + b"# a comment\n")
    assert quality._suite_digest(suite, table) != quality._suite_digest(
        quality.Suite(suite.name, suite.relation, "", suite.expectations, edited), table
    )


def test_a_checkpoint_validates_only_the_suites_whose_table_changed(warehouse_quality, tmp_path):
    """After a passed checkpoint, a build that changed one suite's table validates that
    suite alone: every other suite's result is the one the passed checkpoint stored, and the
    data docs show every suite, each with one result; a failed run leaves no verdict to keep,
    so the run after it validates every suite."""
    database, _, session_out = warehouse_quality
    copy, out = tmp_path / "copy.duckdb", tmp_path / "quality"
    shutil.copy(database, copy)
    shutil.copytree(session_out, out)

    def results() -> dict[str, list[str]]:
        """Each suite's stored results, by the time of the run that made them."""
        found: dict[str, list[str]] = {}
        for path in sorted((out / quality.VALIDATIONS).glob("*/*/*/*.json")):
            found.setdefault(path.parents[2].name, []).append(path.parent.name)
        return found

    before = results()
    suites = {s.name for s in quality.load_suites()}
    assert set(before) == suites and all(len(runs) == 1 for runs in before.values())
    with duckdb.connect(str(copy)) as con:
        con.execute("delete from marts.ranking_consensus where method = 'borda'")
    result = quality.run_quality(copy, out)
    assert result.success and result.unchanged_since is None
    assert (result.suites_kept, result.n_suites) == (len(suites) - 1, len(suites))
    assert result.n_expectations == sum(len(s.expectations) for s in quality.load_suites())
    after = results()
    assert after["ranking_consensus"] != before["ranking_consensus"]
    assert {k: v for k, v in after.items() if k != "ranking_consensus"} == {
        k: v for k, v in before.items() if k != "ranking_consensus"
    }
    site = out / quality.DOCS_SITE / "validations"
    assert {p.name: len(list(p.rglob("*.html"))) for p in site.iterdir()} == dict.fromkeys(
        suites, 1
    )
    assert quality.check_quality_record(copy) == "passed"

    where = "where model = 'GPT-4o' and variant = 'base'"
    with duckdb.connect(str(copy)) as con:
        (high,) = con.execute(
            f"select full_agreement_ci_high from marts.mcq_agreement_summary_v2 {where}"
        ).fetchone()
        con.execute(f"update marts.mcq_agreement_summary_v2 set full_agreement_ci_high = 130.5 "
                    f"{where}")  # fmt: skip
    assert not quality.run_quality(copy, out).success
    with duckdb.connect(str(copy)) as con:
        con.execute(f"update marts.mcq_agreement_summary_v2 set full_agreement_ci_high = ? "
                    f"{where}", [high])  # fmt: skip
    assert quality.run_quality(copy, out).success
    again = results()
    assert all(again[name] != after[name] for name in suites)  # every suite ran again
