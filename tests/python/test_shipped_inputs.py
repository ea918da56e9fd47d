"""The shipped demo inputs are recognised by content (macros/shipped_inputs.sql): the list
holds every reconstructed answer file and the synthetic rankings, each with the sha256 of
the file as shipped, and dq_shipped_inputs finds exactly them in the shipped build."""

from __future__ import annotations

import hashlib
import re
import subprocess

import duckdb
import pytest

from concord_io.project import PROJECT_ROOT

ENTRY = re.compile(
    r"\{'study': '(?P<study>\w+)', 'what': '(?P<what>[^']+)', "
    r"'file': '(?P<file>[^']+)', 'sha256': '(?P<sha256>[0-9a-f]{64})'\}"
)


def listed() -> list[dict[str, str]]:
    text = (PROJECT_ROOT / "macros" / "shipped_inputs.sql").read_text(encoding="utf-8")
    return [m.groupdict() for m in ENTRY.finditer(text)]


def test_every_shipped_demo_file_is_listed_with_the_hash_of_its_bytes():
    """A changed or added demo file fails here, naming it: update the macro's list."""
    entries = listed()
    answers = (PROJECT_ROOT / "seeds" / "mcq" / "answers").glob("*.csv")
    demo = sorted(
        [p.relative_to(PROJECT_ROOT).as_posix() for p in answers]
        + ["seeds/ranking/ranking_rankings.csv"]
    )
    assert sorted(e["file"] for e in entries) == demo
    for entry in entries:
        actual = hashlib.sha256((PROJECT_ROOT / entry["file"]).read_bytes()).hexdigest()
        assert entry["sha256"] == actual, f"{entry['file']}: update macros/shipped_inputs.sql"


def test_a_checkout_that_converts_line_endings_keeps_the_shipped_bytes(tmp_path):
    """A clone with core.autocrlf=true (Windows' default) keeps every shipped demo file's
    bytes, so it is still recognised as shipped (.gitattributes: seeds/** -text); the
    report's notice that its figures are no findings was dropped on such a checkout."""
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "-c", "core.autocrlf=true", "clone", "--quiet", "--depth", "1",
         f"file://{PROJECT_ROOT}", str(clone)],
        check=True, capture_output=True,
    )  # fmt: skip
    for entry in listed():
        actual = hashlib.sha256((clone / entry["file"]).read_bytes()).hexdigest()
        assert entry["sha256"] == actual, entry["file"]


@pytest.mark.warehouse
def test_the_shipped_build_finds_its_eight_runs_and_the_rankings(warehouse):
    with duckdb.connect(str(warehouse), read_only=True) as con:
        rows = con.execute(
            "select study, what, shipped_as, n_rows from marts.dq_shipped_inputs order by all"
        ).fetchall()
    answers = [r for r in rows if r[0] == "mcq"]
    assert len(answers) == 8 and {r[1] for r in answers} == {"reconstructed answers"}
    assert all(n == 180 for *_, n in answers)
    assert [r for r in rows if r[0] == "ranking"] == [
        ("ranking", "synthetic rankings", "seeds/ranking/ranking_rankings.csv", 4500)
    ]
