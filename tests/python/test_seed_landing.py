"""The seed files landed as typed Parquet (concord_io.landing.seeds), on bytes: the declared
columns and types, the provenance (file, row, content hash), landing once per content, and
the refusals, one line each."""

from __future__ import annotations

import hashlib
import os
import signal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from concord_io.errors import ConcordError
from concord_io.landing import land_seeds
from concord_io.landing.schemas import Seed, declared_seeds
from concord_io.landing.seeds import read_seed, read_seeds
from concord_io.project import PROJECT_ROOT

MESSAGES = Seed(
    "probe_messages",
    path=None,  # type: ignore[arg-type]  # read from bytes
    relative="seeds/probe/probe_messages.csv",
    source="probe_seeds",
    columns={"msg_id": "integer", "message": "string"},
)

#: as the shipped sources declare it (the task a name, the language a tag, one line per
#: pair: test_every_seed_column_that_holds_a_language_tag_declares_it)
TASK_LANGUAGES = next(s for s in declared_seeds(PROJECT_ROOT) if s.name == "mcq_task_languages")

SOURCES = """version: 2
sources:
  - name: probe_seeds
    config: {meta: {seed_folder: seeds/probe}}
    tables:
      - name: probe_messages
        columns:
          - {name: msg_id, data_type: integer}
          - {name: message, data_type: string}
  - name: mcq_landing  # a landing source, not a seed folder's
    tables: [{name: runs}]
"""


def project(root, files: dict[str, bytes], sources: str = SOURCES):
    (root / "seeds" / "probe").mkdir(parents=True, exist_ok=True)
    (root / "models" / "staging" / "probe").mkdir(parents=True, exist_ok=True)
    (root / "models" / "staging" / "probe" / "_probe__sources.yml").write_text(sources)
    for name, data in files.items():
        (root / "seeds" / "probe" / name).write_bytes(data)
    return root


def test_a_seed_lands_its_declared_columns_typed_with_its_provenance():
    data = b'\xef\xbb\xbfMessage, msg_id\r\n"Hi, ""you""",2\r\n,\r\n  spaced  ,-7\r\n'
    table = read_seed(MESSAGES, data)
    # the declared order and names (the header's order and case do not matter)
    assert table.schema.names == ["msg_id", "message", "source_file", "source_row", "content_hash"]
    assert table.schema.field("msg_id").type == pa.int32()
    assert table.column("msg_id").to_pylist() == [2, None, -7]
    # an empty cell is null; any other text is kept as written
    assert table.column("message").to_pylist() == ['Hi, "you"', None, "  spaced  "]
    assert table.column("source_row").to_pylist() == [1, 2, 3]
    assert set(table.column("source_file").to_pylist()) == {MESSAGES.relative}
    assert set(table.column("content_hash").to_pylist()) == {hashlib.sha256(data).hexdigest()}


def test_a_header_alone_lands_no_rows():
    table = read_seed(MESSAGES, b"msg_id,message\n")
    assert table.num_rows == 0 and table.schema.names[:2] == ["msg_id", "message"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b"msg_id,message\n1,a\nx,b\n",
            "seed probe_messages (seeds/probe/probe_messages.csv): row 2, column msg_id: 'x' "
            "is not a canonical whole number from -2147483648 to 2147483647 (integer)",
        ),
        (b"msg_id,message\n2.5,a\n", "row 1, column msg_id: '2.5' is not a canonical whole"),
        (b"msg_id,message\n9999999999,a\n", "row 1, column msg_id: '9999999999' is not"),
        (
            b"msg_id,text\n1,a\n",
            "declared column(s) message missing from the header; header column(s) text not "
            "declared in column_types",
        ),
        (b"msg_id,message\n1\n", "row 1 (line 2) has 1 fields, the header has 2"),
        (b"", "seed probe_messages (seeds/probe/probe_messages.csv): the file is empty"),
    ],
)
def test_a_bad_seed_is_refused_in_one_line(data, message):
    with pytest.raises(ConcordError) as refused:
        read_seed(MESSAGES, data)
    assert message in refused.value.message


@pytest.mark.parametrize("written", ["003", " 3 ", "3 ", "+3", "-0", "-03", "3\t", "\u0663"])
def test_an_integer_is_read_as_written_or_refused_naming_its_row(written):
    """A whole number has one spelling (0, -7, 42): `003`, ` 3 ` or `+3` were read as 3 and
    collided with the row that says 3, which only a dbt uniqueness test caught, naming
    neither row nor value; each is refused naming seed, row, column and the value as
    written."""
    data = f"msg_id,message\n3,a\n{written},b\n".encode()
    with pytest.raises(ConcordError) as refused:
        read_seed(MESSAGES, data)
    assert refused.value.message == (
        f"seed probe_messages (seeds/probe/probe_messages.csv): row 2, column msg_id: "
        f"{written!r} is not a canonical whole number from -2147483648 to 2147483647 (integer)"
    )
    assert refused.value.hint.startswith(
        "write it in digits alone, with - for a negative (0, -7, 42: no +, leading zero, "
        "blanks or -0), or leave the cell empty"
    )


def test_an_integer_written_canonically_lands_at_either_end_of_its_range():
    data = b"msg_id,message\n0,a\n-7,b\n42,c\n-2147483648,d\n2147483647,e\n"
    assert read_seed(MESSAGES, data).column("msg_id").to_pylist() == [
        0, -7, 42, -(2**31), 2**31 - 1
    ]  # fmt: skip
    with pytest.raises(ConcordError, match="row 1, column msg_id: '2147483648' is not"):
        read_seed(MESSAGES, b"msg_id,message\n2147483648,a\n")


def test_a_language_tag_lands_canonical_as_its_column_declares():
    """`EN` in mcq_task_languages was taken as written: every English answer of the task was
    quarantined and every headline moved, with only the quarantine count to show for it.
    A column declared `format: language_tag` lands as the registries' tags do."""
    data = b"task,language\na,EN\nb,eng\nc,en_US\nd,zh_hant\ne, it \n"
    table = read_seed(TASK_LANGUAGES, data)
    assert table.column("language").to_pylist() == ["en", "en", "en-US", "zh-Hant", "it"]
    assert table.column("task").to_pylist() == ["a", "b", "c", "d", "e"]


@pytest.mark.parametrize(
    ("lines", "message", "hint"),
    [
        (
            "xcopa,en\nxcopa,English\n",
            "seed mcq_task_languages (seeds/mcq/mcq_task_languages.csv): row 2, column "
            "language: 'English' is not a valid language tag",
            "use a BCP 47 tag such as en, it, fa, en-US, zh-Hant or pes",
        ),
        (
            "xcopa,en\n xcopa,it\n",
            "seed mcq_task_languages (seeds/mcq/mcq_task_languages.csv): row 2: task ' xcopa' "
            "is not a name (letters, digits, _, - and . only, with a letter or digit)",
            "name it with letters, digits, _, - and .",
        ),
        (
            "xcopa,en\nxstory,de\nxcopa,EN\n",
            "seed mcq_task_languages (seeds/mcq/mcq_task_languages.csv): rows 1 and 3 are both "
            "task 'xcopa', language 'en' (as written: row 1 language 'en'; row 3 language 'EN')",
            "keep one line per task and language",
        ),
        (
            "xcopa,en\nxcopa,en\n",
            "seed mcq_task_languages (seeds/mcq/mcq_task_languages.csv): rows 1 and 2 are both "
            "task 'xcopa', language 'en'",
            "keep one line per task and language",
        ),
        (
            "xcopa,en\n,de\n",
            "seed mcq_task_languages (seeds/mcq/mcq_task_languages.csv): row 2, column task: "
            "blank, and (task, language) is the file's key",
            "fill it in, or remove the line",
        ),
    ],
    ids=["tag", "name", "repeated after canonicalisation", "repeated", "blank key"],
)
def test_a_value_off_its_declared_format_or_key_is_refused_naming_the_rows(lines, message, hint):
    """Each refused in one line naming seed, row(s), column and the value as written (a
    repeated task and language was caught only by a dbt test after the landing, naming no
    row)."""
    with pytest.raises(ConcordError) as refused:
        read_seed(TASK_LANGUAGES, f"task,language\n{lines}".encode())
    assert refused.value.message == message
    assert refused.value.hint.startswith(hint)
    assert refused.value.hint.endswith("nothing of this file was landed")


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            "gpt-4o,GPT-4o\nGPT-4o,gpt4o-canonical\n",
            "row 1 maps 'gpt-4o' to 'GPT-4o', which row 2 maps to 'gpt4o-canonical'",
        ),
        ("gpt-4o,\n", "row 1, column model: blank (what spelling 'gpt-4o' maps to)"),
        ("gpt-4o,GPT-4o\ngpt-4o,GPT-4o\n", "rows 1 and 2 are both spelling 'gpt-4o'"),
    ],
    ids=["chain", "blank model", "spelling twice"],
)
def test_the_model_aliases_rules_are_checked_as_the_file_lands(lines, message):
    """The shipped declaration of model_aliases (primary_key [spelling], maps [spelling,
    model]): a chain, a blank model and a spelling given twice are refused naming the rows
    as the file lands (they were caught by dbt tests after the build, naming no row); a
    name mapped to itself is no chain."""
    (aliases,) = [s for s in declared_seeds(PROJECT_ROOT) if s.name == "model_aliases"]
    with pytest.raises(ConcordError) as refused:
        read_seed(aliases, f"spelling,model\n{lines}".encode())
    assert refused.value.message == f"{aliases.label}: {message}"
    assert refused.value.hint.endswith("nothing of this file was landed")
    table = read_seed(aliases, b"spelling,model\ngpt-4o,GPT-4o\nGPT-4o,GPT-4o\n")
    assert table.column("model").to_pylist() == ["GPT-4o", "GPT-4o"]


def test_every_seed_column_that_holds_a_language_tag_declares_it():
    """The shipped declarations: each language column of a seed is a language tag, the task
    languages' task a name and (task, language) their key; one declaration each, in the
    sources yml, which the reader and dbt's parser both read."""
    seeds = {seed.name: seed for seed in declared_seeds(PROJECT_ROOT)}
    languages = {
        f"{seed.name}.{column}": seed.formats.get(column)
        for seed in seeds.values()
        for column in seed.columns
        if "lang" in column
    }
    assert languages == {
        "mcq_answer_sources.language": "language_tag",
        "mcq_domain_translations.language": "language_tag",
        "mcq_item_files.language": "language_tag",
        "mcq_task_languages.language": "language_tag",
    }
    task_languages = seeds["mcq_task_languages"]
    assert (task_languages.columns, task_languages.formats, task_languages.primary_key) == (
        {"task": "string", "language": "string"},
        {"task": "name", "language": "language_tag"},
        ("task", "language"),
    )


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "{name: message, data_type: string}",
            "{name: message, data_type: string, config: {meta: {format: tag}}}",
            "table probe_messages, column message: format tag is not one of language_tag, "
            "name on a string column",
        ),
        (
            "{name: msg_id, data_type: integer}",
            "{name: msg_id, data_type: integer, config: {meta: {format: name}}}",
            "table probe_messages, column msg_id: format name is not one of language_tag, name "
            "on a string column",
        ),
        (
            "      - name: probe_messages\n",
            "      - name: probe_messages\n        config: {meta: {primary_key: [id]}}\n",
            "table probe_messages: primary_key ['id'] is not a list of its declared columns",
        ),
    ],
    ids=["unknown format", "format of an integer", "key of an undeclared column"],
)
def test_a_format_or_key_declared_wrong_is_refused_naming_the_yml(tmp_path, old, new, message):
    assert old in SOURCES
    root = project(tmp_path, {}, SOURCES.replace(old, new))
    with pytest.raises(ConcordError) as refused:
        declared_seeds(root)
    assert refused.value.message == (
        f"models/staging/probe/_probe__sources.yml: source probe_seeds, {message}"
    )


def test_every_declared_seed_is_read_and_every_refusal_named(tmp_path):
    good = project(tmp_path / "good", {"probe_messages.csv": b"msg_id,message\n1,a\n"})
    (seed,) = declared_seeds(good)
    assert (seed.name, seed.relative, seed.columns) == (
        "probe_messages",
        "seeds/probe/probe_messages.csv",
        {"msg_id": "integer", "message": "string"},
    )
    bad = project(tmp_path / "bad", {"probe_messages.csv": b"msg_id\n1\n", "extra.csv": b"a\n"})
    with pytest.raises(ConcordError) as refused:
        read_seeds(bad)
    assert refused.value.message.splitlines() == [
        "seed extra (seeds/probe/extra.csv): no source table declares it. Declare it (a table "
        "of the folder's source, with its columns' data_type) or remove the file",
        "seed probe_messages (seeds/probe/probe_messages.csv), header row: declared column(s) "
        "message missing from the header (header: msg_id; declared: msg_id, message). Rename "
        "the column in the file or declare it",
    ]
    assert refused.value.hint == "fix the 2 seed file(s) named above"
    missing = project(tmp_path / "missing", {})
    with pytest.raises(ConcordError, match=r"csv\): file not found \(declared in source probe"):
        read_seeds(missing)


def test_a_declared_type_must_be_one_the_reader_lands(tmp_path):
    root = project(tmp_path, {}, SOURCES.replace("data_type: integer", "data_type: decimal"))
    with pytest.raises(ConcordError, match="column msg_id: data_type decimal is not one of"):
        declared_seeds(root)


def test_a_seed_lands_once_per_content_and_again_when_it_changes(tmp_path, monkeypatch):
    root = project(tmp_path / "p", {"probe_messages.csv": b"msg_id,message\n1,a\n"})
    landing = tmp_path / "landing"
    first = land_seeds(root, landing)
    assert [(o.status, o.folder) for o in first.outcomes] == [
        ("landed", "seeds/seed=probe_messages")
    ]
    path = landing / "seeds" / "seed=probe_messages" / "probe_messages.parquet"
    assert pq.read_table(path).column("message").to_pylist() == ["a"]
    written = path.stat().st_mtime_ns

    # unchanged bytes are hashed, not parsed again: the landed count is the footer's
    with monkeypatch.context() as patched:
        patched.setattr("concord_io.landing.seeds.read_seed", None)  # any call would fail
        again = land_seeds(root, landing)
    assert [o.line() for o in again.outcomes] == [
        line.replace("landed   ", "unchanged", 1) for line in first.lines()
    ]
    assert path.stat().st_mtime_ns == written  # not written again

    (root / "seeds" / "probe" / "probe_messages.csv").write_bytes(b"msg_id,message\n1,b\n")
    assert land_seeds(root, landing).status_of("seeds/seed=probe_messages") == "replaced"
    assert pq.read_table(path).column("message").to_pylist() == ["b"]
    assert not [p.name for p in path.parents[1].iterdir() if p.name.startswith(".")]

    # a refused file lands nothing: the landed version stays
    (root / "seeds" / "probe" / "probe_messages.csv").write_bytes(b"msg_id,message\nx,c\n")
    with pytest.raises(ConcordError):
        land_seeds(root, landing)
    assert pq.read_table(path).column("message").to_pylist() == ["b"]

    # a seed no longer declared is removed from the landing
    (root / "seeds" / "probe" / "probe_messages.csv").unlink()
    project(root, {}, "version: 2\nsources: []\n")
    removed = land_seeds(root, landing)
    assert removed.status_of("seeds/seed=probe_messages") == "removed"
    assert not path.exists()


def test_a_seed_lands_again_when_its_declared_format_or_key_changes(tmp_path):
    root = project(tmp_path / "p", {"probe_messages.csv": b"msg_id,message\n1,a\n"})
    landing = tmp_path / "landing"
    land_seeds(root, landing)
    named = SOURCES.replace(
        "{name: message, data_type: string}",
        "{name: message, data_type: string, config: {meta: {format: name}}}",
    )
    project(root, {}, named)
    assert land_seeds(root, landing).status_of("seeds/seed=probe_messages") == "replaced"
    keyed = named.replace(
        "      - name: probe_messages\n",
        "      - name: probe_messages\n        config: {meta: {primary_key: [msg_id]}}\n",
    )
    project(root, {}, keyed)
    assert land_seeds(root, landing).status_of("seeds/seed=probe_messages") == "replaced"
    assert land_seeds(root, landing).status_of("seeds/seed=probe_messages") == "unchanged"


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (os.mkfifo, "a FIFO (named pipe)"),
        (os.mkdir, "a folder"),
        (lambda path: os.symlink("/dev/zero", path), "a device"),
    ],
    ids=["fifo", "folder", "link to /dev/zero"],
)
def test_a_seed_that_is_not_a_regular_file_is_refused_before_a_byte_is_read(tmp_path, make, kind):
    """A FIFO hung the landing (and dbt build), a link to /dev/zero ran it out of memory:
    each is refused in one line, at once (the alarm fails the test instead of a hang)."""
    root = project(tmp_path, {})
    make(root / "seeds" / "probe" / "probe_messages.csv")
    signal.alarm(20)
    try:
        with pytest.raises(ConcordError) as refused:
            read_seeds(root)
    finally:
        signal.alarm(0)
    assert refused.value.message == (
        f"seed probe_messages (seeds/probe/probe_messages.csv): is {kind}, not a regular "
        "file; nothing was read. register a regular file (a link to one is fine)"
    )
