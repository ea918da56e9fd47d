"""The code the docs show runs as shown. Every ```sql block (each statement) and every
Python snippet (the ```python blocks and the README's heredoc) runs against the shipped
warehouse, at the path the docs give; every option that a documented `concord` or
`python -m probe` command line passes is one that command takes (a renamed or removed
flag fails here, naming the page and line). The builds, probe runs, harness runs and
MetricFlow queries the docs show are run by their own tests (first-day, probe, lm-eval,
semantic layer): here only their flags are checked."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import duckdb
import pytest

from concord_io.cli import MCQ_OWN_OPTIONS
from concord_io.project import PROJECT_ROOT

PAGES = [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
HEREDOC = re.compile(r"python - <<'PY'\n(.*?)^PY$", re.MULTILINE | re.DOTALL)
#: where the docs say the published file is, relative to the project
SERVING = "warehouse/serving/concord.duckdb"


def blocks(language: str) -> list[tuple[str, int, str]]:
    """(page, line, code) of every fenced block in ``language``."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            if match.group(1) == language:
                line = text.count("\n", 0, match.start()) + 1
                found.append((page.relative_to(PROJECT_ROOT).as_posix(), line, match.group(2)))
    return found


def python_snippets() -> list[tuple[str, int, str]]:
    snippets = blocks("python")
    for page, line, code in blocks("bash"):
        for match in HEREDOC.finditer(code):
            snippets.append((page, line, match.group(1)))
    return snippets


def statements(sql: str) -> list[str]:
    """The block's statements (no statement here holds a ';' inside a string)."""
    parts = [s.strip() for s in sql.split(";")]
    return [s for s in parts if s and not all(x.startswith("--") for x in s.splitlines())]


def test_the_docs_show_code_this_test_reads():
    assert len(blocks("sql")) >= 2 and len(python_snippets()) >= 2 and len(blocks("bash")) >= 8


@pytest.mark.parametrize(("page", "line", "sql"), blocks("sql"), ids=lambda v: str(v)[:40])
def test_every_sql_block_runs_on_the_shipped_warehouse(warehouse, page, line, sql):
    with duckdb.connect(str(warehouse), read_only=True) as con:
        for statement in statements(sql):
            try:
                con.execute(statement).fetchall()
            except duckdb.Error as error:
                pytest.fail(f"{page}, line {line}: {statement.splitlines()[0]}…: {error}")


@pytest.mark.parametrize(("page", "line", "code"), python_snippets(), ids=lambda v: str(v)[:40])
def test_every_python_snippet_runs_where_the_docs_run_it(
    warehouse, tmp_path, monkeypatch, capsys, page, line, code
):
    """In a project folder whose serving file is the shipped warehouse: it prints the
    models' figures."""
    serving = tmp_path / SERVING
    serving.parent.mkdir(parents=True)
    serving.symlink_to(warehouse)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{page}:{line}", "exec"), {})  # noqa: S102 (the docs' own code)
    shown = capsys.readouterr().out
    assert "GPT-4o" in shown and "full_agreement_pct" in shown, f"{page}, line {line}"


def concord_options() -> dict[tuple[str, ...], set[str]]:
    """Each `concord` command (as its words) -> the options it takes."""
    import typer

    from concord_io.cli import app

    found: dict[tuple[str, ...], set[str]] = {}

    def walk(command, words: tuple[str, ...]) -> None:
        found[words] = {opt for p in command.params for opt in (*p.opts, *p.secondary_opts)}
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, (*words, name))

    walk(typer.main.get_command(app), ())
    return found


def probe_options() -> dict[str, set[str]]:
    """Each `python -m probe` command -> the options it takes (its parser: no torch)."""
    from probe.__main__ import build_parser

    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return {
        name: {opt for action in parser._actions for opt in action.option_strings}
        for name, parser in sub.choices.items()
    }


def command_lines() -> list[tuple[str, int, list[str]]]:
    """(page, line, words) of every documented command line, continuation lines joined and
    comments cut."""
    found = []
    for page, start, code in blocks("bash"):
        code = HEREDOC.sub("", code).replace("\\\n", " ")
        for offset, text in enumerate(code.splitlines()):
            text = text.split("  #")[0].split(" # ")[0].strip()
            if text:
                found.append((page, start + 1 + offset, shlex.split(text)))
    return found


def test_every_documented_command_line_passes_options_its_command_takes():
    concord, probe = concord_options(), probe_options()
    wrong, checked = [], 0
    for page, line, words in command_lines():
        program = Path(words[0]).name
        if program == "concord":
            rest = words[1:]
            command: tuple[str, ...] = ()
            while rest and (*command, rest[0]) in concord:
                command, rest = (*command, rest[0]), rest[1:]
            if command[:1] == ("probe",) and len(command) == 2 and command[1] in probe:
                known = probe[command[1]]  # concord probe passes its words to the probe
                if command[1] == "mcq":  # and takes its own beside them
                    known = known | set(MCQ_OWN_OPTIONS)
            else:
                known = concord[command]
        elif "-m" in words and words[words.index("-m") + 1 :][:1] == ["probe"]:
            rest = words[words.index("-m") + 2 :]
            if not rest or rest[0] not in probe:
                wrong.append(f"{page}:{line}: python -m probe {' '.join(rest[:1])}: no command")
                continue
            known = probe[rest[0]]
        else:
            continue  # make, lm_eval, mf, dbt: their own tests and tools
        checked += 1
        for word in rest:
            option = word.split("=", 1)[0]
            if option.startswith("--") and option not in known:
                wrong.append(f"{page}:{line}: {option} is not an option of {' '.join(words[:3])}")
    assert checked >= 15, checked
    assert not wrong, "\n".join(wrong)
